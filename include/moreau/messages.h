// Warnings and errors (simulation chapter, "Errors and warnings" and "Diagnostics").
//
// Errors are exceptions: LoadError for a model that does not load, std::out_of_range and
// std::invalid_argument for bad arguments, std::runtime_error for what a model cannot run. The error
// handler sees the message of each of them as it is raised (before the throw), for logging; by
// default there is none.
//
// Warnings are recorded in Data::warning (a counter and the offending index per kind, cleared by
// reset_data). The first occurrence of a kind in a Data (counter 0 -> 1) also calls the warning
// handler with the warning's text; the default handler prints it to stderr, once per kind per process.
//
// The handlers are per process, as the chapter's mju_user_warning/mju_user_error; setting and calling
// them is thread-safe. A handler is called from the thread that raised the message, possibly from
// several threads at once, and must not throw.
#pragma once

#include <functional>

#include "moreau/data.h"

namespace moreau {

using MessageHandler = std::function<void(const char* message)>;

// Install a handler; an empty one restores the default. Returns the previous handler (empty when it
// was the default).
MessageHandler set_warning_handler(MessageHandler handler);
MessageHandler set_error_handler(MessageHandler handler);

// Record warning `kind` with its offending index `info` in d (as the pipeline does: lastinfo, number)
// and, the first time since reset, call the warning handler with warning_text. Never allocates.
void warning(Data& d, Warning kind, int info);

// The text of a warning: what happened, at which index, what to do ("Too many contacts for the
// preallocated storage (1000); increase <size nconmax>"). Writes at most size chars with the
// terminating 0; returns buf.
const char* warning_text(Warning kind, int info, char* buf, int size);

}  // namespace moreau
