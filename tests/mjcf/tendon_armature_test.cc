// Tendon armature is newer than MuJoCo 2.2.2 and not implemented (it would couple, in M, every dof
// a tendon spans, outside M's tree sparsity): a nonzero value is refused at load with file, line
// and element, on the tendon or on a default class; 0 changes nothing and is accepted.
#include <gtest/gtest.h>

#include <string>

#include "moreau/moreau.h"

namespace {

const char* kBody = R"(
<worldbody>
  <body><joint name="a" type="hinge"/><geom size=".1"/>
    <body pos="0 0 -.3"><joint name="b" type="hinge"/><geom size=".1"/></body>
  </body>
</worldbody>)";

void expect_refused(const std::string& xml, int line, const std::string& element) {
  try {
    moreau::load_model_from_string(xml, "model.xml");
    ADD_FAILURE() << "no LoadError for:\n" << xml;
  } catch (const moreau::LoadError& e) {
    EXPECT_EQ(e.file(), "model.xml") << e.what();
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.element(), element) << e.what();
    EXPECT_NE(std::string(e.what()).find("tendon armature"), std::string::npos) << e.what();
  }
}

TEST(TendonArmature, NonzeroIsRefusedOnTheTendon) {
  expect_refused(std::string("<mujoco>") + kBody +
                     "\n<tendon>\n<fixed armature=\"0.1\">\n<joint joint=\"a\" coef=\"1\"/>\n</fixed>\n</tendon>\n"
                     "</mujoco>",
                 8, "fixed");
}

TEST(TendonArmature, NonzeroIsRefusedInADefaultClass) {
  expect_refused("<mujoco>\n<default>\n<tendon armature=\"2\"/>\n</default>\n</mujoco>", 3, "tendon");
}

TEST(TendonArmature, ZeroIsAccepted) {
  const moreau::Model m = moreau::load_model_from_string(
      std::string("<mujoco>") + kBody +
      "<tendon><fixed armature=\"0\"><joint joint=\"a\" coef=\"1\"/><joint joint=\"b\" coef=\"-1\"/></fixed>"
      "</tendon></mujoco>");
  ASSERT_EQ(m.ntendon, 1);
  EXPECT_EQ(m.tendon_armature[0], 0);
}

}  // namespace
