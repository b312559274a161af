// `animpack retarget`: the clips of one glTF model played on another's skeleton
// (retarget.h), shown as a pairing table (--dry-run) or written as a pack of the target
// model with the retargeted clips. See docs/cli.md and docs/retargeting.md.
#pragma once

namespace animpack {

// The usage text of `animpack retarget --help`.
extern const char* const kRetargetUsage;

// Runs `animpack retarget` on the arguments after the command name. Returns the exit
// status: 0 done, 1 a model or humanoid map has errors or no clip survives, 2 usage or
// I/O failure (a missing file, an unwritable pack).
int retarget_command(int argc, char** argv);

}  // namespace animpack
