// Warning and error handlers (include/moreau/messages.h; simulation chapter, "Errors and warnings"):
//  - the warning handler is called the first time each kind occurs in a Data (the counters keep
//    counting), again after reset_data, and once per Data;
//  - the default handler prints a kind once per process to stderr;
//  - the error handler sees the message of argument errors and of models that do not load;
//  - handlers can be replaced while other threads step and warn.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "moreau/moreau.h"

namespace moreau {
namespace {

// Four spheres resting on a plane, room for two contacts: every step overflows the contact storage.
const char* kCrowded = R"(<mujoco>
  <size nconmax="2"/>
  <worldbody>
    <geom type="plane" size="5 5 .1"/>
    <body pos="0 0 .09"><freejoint/><geom size=".1"/></body>
    <body pos="1 0 .09"><freejoint/><geom size=".1"/></body>
    <body pos="2 0 .09"><freejoint/><geom size=".1"/></body>
    <body pos="3 0 .09"><freejoint/><geom size=".1"/></body>
  </worldbody>
</mujoco>)";

// Installs a recording handler for the scope of a test and restores the previous one.
struct Recorder {
  std::mutex mutex;
  std::vector<std::string> messages;
  MessageHandler previous;
  bool error;
  explicit Recorder(bool error_handler) : error(error_handler) {
    auto h = [this](const char* m) {
      std::lock_guard<std::mutex> lock(mutex);
      messages.emplace_back(m);
    };
    previous = error ? set_error_handler(h) : set_warning_handler(h);
  }
  ~Recorder() { error ? set_error_handler(previous) : set_warning_handler(previous); }
};

TEST(Messages, WarningHandlerOnFirstOccurrencePerData) {
  const Model m = load_model_from_string(kCrowded);
  Recorder rec(false);
  Data a = make_data(m), b = make_data(m);
  for (int i = 0; i < 5; ++i) step(m, a);
  EXPECT_EQ(a.warning[kWarnContactFull].number, 5);  // the counter counts every step
  EXPECT_EQ(a.warning[kWarnContactFull].lastinfo, 2);
  ASSERT_EQ(rec.messages.size(), 1u);
  EXPECT_EQ(rec.messages[0], "too many contacts for the preallocated storage (2); increase <size nconmax> or memory");
  for (int i = 0; i < 3; ++i) step(m, b);
  EXPECT_EQ(rec.messages.size(), 2u);  // b's first
  reset_data(m, a);
  step(m, a);
  EXPECT_EQ(rec.messages.size(), 3u);  // a's first since its reset
  // the user's own warning, as the chapter's mj_warning
  warning(a, kWarnBadQpos, 3);
  warning(a, kWarnBadQpos, 4);
  EXPECT_EQ(a.warning[kWarnBadQpos].number, 2);
  EXPECT_EQ(a.warning[kWarnBadQpos].lastinfo, 4);
  ASSERT_EQ(rec.messages.size(), 4u);
  EXPECT_NE(rec.messages[3].find("qpos at index 3"), std::string::npos) << rec.messages[3];
}

// Two Data that both overflow the contact storage; exits 0 when both counted every step.
void overflow_two_data() {
  const Model m = load_model_from_string(kCrowded);
  Data a = make_data(m);
  Data b = make_data(m);
  for (int i = 0; i < 3; ++i) step(m, a);
  for (int i = 0; i < 3; ++i) step(m, b);
  std::exit(a.warning[kWarnContactFull].number == 3 && b.warning[kWarnContactFull].number == 3 ? 0 : 1);
}

// The default handler prints each kind once per process: in a fresh process (the threadsafe death
// test style re-executes the test binary), stderr is one line.
TEST(MessagesDeathTest, DefaultHandlerPrintsOncePerKindPerProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(overflow_two_data(), ::testing::ExitedWithCode(0),
              "^moreau warning: too many contacts for the preallocated storage \\(2\\); increase <size nconmax> or "
              "memory\n$");
}

TEST(Messages, ErrorHandlerSeesArgumentAndLoadErrors) {
  const Model m = load_model_from_string(kCrowded);
  const Data d = make_data(m);
  Recorder rec(true);
  std::vector<double> jac(3 * m.nv);
  try {
    jac_body_com(m, d, jac.data(), nullptr, -1);
    FAIL();
  } catch (const std::out_of_range& e) {
    ASSERT_EQ(rec.messages.size(), 1u);
    EXPECT_EQ(rec.messages[0], e.what());
  }
  try {
    load_model_from_string("<mujoco><worldbody><body pos=\"0 0\"/></worldbody></mujoco>", "bad.xml");
    FAIL();
  } catch (const LoadError& e) {
    ASSERT_EQ(rec.messages.size(), 2u);
    EXPECT_EQ(rec.messages[1], e.what());
    EXPECT_NE(rec.messages[1].find("bad.xml:1"), std::string::npos) << rec.messages[1];
  }
}

// Threads step their own Data (each warns once) while the main thread swaps handlers.
TEST(Messages, HandlersAreThreadSafe) {
  const Model m = load_model_from_string(kCrowded);
  std::atomic<int> calls{0};
  const MessageHandler previous = set_warning_handler([&](const char*) { calls++; });
  constexpr int kThreads = 4, kDataPerThread = 20;
  std::atomic<bool> done{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int k = 0; k < kDataPerThread; ++k) {
        Data d = make_data(m);
        for (int i = 0; i < 3; ++i) step(m, d);
      }
    });
  }
  std::thread swapper([&] {
    while (!done) set_warning_handler([&](const char*) { calls++; });
  });
  for (auto& t : threads) t.join();
  done = true;
  swapper.join();
  set_warning_handler(previous);
  EXPECT_EQ(calls.load(), kThreads * kDataPerThread);  // one first occurrence per Data
}

}  // namespace
}  // namespace moreau
