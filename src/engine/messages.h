// Internal side of the error handler (include/moreau/messages.h).
#pragma once

namespace moreau::internal {

// Pass the message of an error about to be thrown to the error handler, if one is installed.
void report_error(const char* message);

}  // namespace moreau::internal

#include <string>

namespace moreau::internal {

// Report `message` to the error handler, then throw E(message).
template <class E>
[[noreturn]] void raise(const std::string& message) {
  report_error(message.c_str());
  throw E(message);
}

}  // namespace moreau::internal
