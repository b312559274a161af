// `animpack preview`: filmstrips and contact sheets of an object's clips, traced by
// animpack::trace (tracer/) and written as one PNG. See docs/cli.md.
#pragma once

namespace animpack {

// The usage text of `animpack preview --help`.
extern const char* const kPreviewUsage;

// Runs `animpack preview` on the arguments after the command name. Returns the exit
// status: 0 written, 1 the pack or the named object or clip is refused, 2 usage or I/O
// failure (a missing pack, an unwritable PNG).
int preview_command(int argc, char** argv);

}  // namespace animpack
