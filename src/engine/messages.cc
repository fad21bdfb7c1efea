// Process-wide warning and error handlers (include/moreau/messages.h). Each handler lives in a
// shared_ptr guarded by a mutex: a call copies the pointer under the lock (no allocation) and calls
// outside it, so handlers may be replaced while others run.
#include "moreau/messages.h"

#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>

#include "engine/messages.h"

namespace moreau {
namespace {

struct Slot {
  std::mutex mutex;
  std::shared_ptr<const MessageHandler> handler;  // null: the default
};
Slot& warning_slot() {
  static Slot s;
  return s;
}
Slot& error_slot() {
  static Slot s;
  return s;
}

MessageHandler swap(Slot& slot, MessageHandler handler) {
  std::shared_ptr<const MessageHandler> next;
  if (handler) next = std::make_shared<const MessageHandler>(std::move(handler));
  std::lock_guard<std::mutex> lock(slot.mutex);
  std::shared_ptr<const MessageHandler> prev = std::move(slot.handler);
  slot.handler = std::move(next);
  return prev ? *prev : MessageHandler{};
}

std::shared_ptr<const MessageHandler> current(Slot& slot) {
  std::lock_guard<std::mutex> lock(slot.mutex);
  return slot.handler;
}

// The default warning handler: stderr, the first time each kind occurs in the process.
std::atomic<bool> printed[kNWarning];
void default_warning(Warning kind, const char* text) {
  if (!printed[kind].exchange(true)) std::fprintf(stderr, "moreau warning: %s\n", text);
}

}  // namespace

MessageHandler set_warning_handler(MessageHandler handler) { return swap(warning_slot(), std::move(handler)); }
MessageHandler set_error_handler(MessageHandler handler) { return swap(error_slot(), std::move(handler)); }

const char* warning_text(Warning kind, int info, char* buf, int size) {
  if (!buf || size <= 0) return buf;
  switch (kind) {
    case kWarnInertia:
      std::snprintf(buf, size, "the inertia matrix is too close to singular at dof %d; check the model's masses, "
                    "inertias and armature", info);
      break;
    case kWarnContactFull:
      std::snprintf(buf, size, "too many contacts for the preallocated storage (%d); increase <size nconmax> or "
                    "memory", info);
      break;
    case kWarnCnstrFull:
      std::snprintf(buf, size, "too many constraint rows for the preallocated storage (%d); increase <size njmax> "
                    "or memory", info);
      break;
    case kWarnVGeomFull:
      std::snprintf(buf, size, "the visual geom buffer is full (%d)", info);
      break;
    case kWarnBadQpos:
      std::snprintf(buf, size, "NaN, Inf or huge value in qpos at index %d: the simulation diverged and was reset", info);
      break;
    case kWarnBadQvel:
      std::snprintf(buf, size, "NaN, Inf or huge value in qvel at index %d: the simulation diverged and was reset", info);
      break;
    case kWarnBadQacc:
      std::snprintf(buf, size, "NaN, Inf or huge value in qacc at index %d: the simulation diverged and was reset", info);
      break;
    case kWarnBadCtrl:
      std::snprintf(buf, size, "NaN, Inf or huge value in ctrl at actuator %d: the controls were zeroed", info);
      break;
    default:
      std::snprintf(buf, size, "unknown warning %d (info %d)", static_cast<int>(kind), info);
      break;
  }
  return buf;
}

void warning(Data& d, Warning kind, int info) {
  if (kind < 0 || kind >= kNWarning) return;
  WarningStat& w = d.warning[kind];
  w.lastinfo = info;
  if (w.number++ != 0) return;
  char text[256];
  warning_text(kind, info, text, sizeof(text));
  const std::shared_ptr<const MessageHandler> h = current(warning_slot());
  if (h) (*h)(text);
  else default_warning(kind, text);
}

namespace internal {
void report_error(const char* message) {
  const std::shared_ptr<const MessageHandler> h = current(error_slot());
  if (h) (*h)(message);
}
}  // namespace internal

}  // namespace moreau
