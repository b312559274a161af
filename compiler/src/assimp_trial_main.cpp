// animpack-assimp-trial FILE: Assimp's trial read of FILE (import_assimp.cpp) in a process
// of its own, under kAssimpMaxSeconds of CPU time and kAssimpMaxMemoryBytes of address
// space. The cooker starts it with posix_spawn and reads its exit status (assimp_read.h)
// and the last line of its output. A process of its own, not a fork of the cooker: a
// cooker cooking on several threads may hold any lock (a static's initialisation guard,
// libstdc++'s or a library's mutex) at the moment it forks, and a forked child that then
// runs Assimp waits on that lock forever.
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>
#include <exception>

#include "animpack/compiler/import_assimp.h"
#include "assimp_read.h"

namespace {

void say(const char* text) { (void)!write(STDERR_FILENO, text, std::strlen(text)); }

}  // namespace

int main(int argc, char** argv) {
  using namespace animpack;
  using namespace animpack::assimp_read;
  if (argc != 2) {
    say("usage: animpack-assimp-trial FILE (the cooker runs it; see docs/assimp.md)\n");
    return kTrialUsage;
  }
  const rlimit cpu{static_cast<rlim_t>(kAssimpMaxSeconds),
                   static_cast<rlim_t>(kAssimpMaxSeconds + 1)};
  if (setrlimit(RLIMIT_CPU, &cpu) != 0) {
    say("animpack-assimp-trial: the CPU time limit could not be set\n");
    return kTrialUsage;
  }
#ifndef ANIMPACK_ASSIMP_NO_RLIMIT_AS
  const rlimit as{static_cast<rlim_t>(kAssimpMaxMemoryBytes),
                  static_cast<rlim_t>(kAssimpMaxMemoryBytes)};
  if (setrlimit(RLIMIT_AS, &as) != 0) {
    say("animpack-assimp-trial: the address space limit could not be set\n");
    return kTrialUsage;
  }
#endif
  int code = kTrialException;
  try {
    Assimp::Importer importer;
    configure(importer);
    if (importer.ReadFile(argv[1], kReadFlags)) {
      code = kTrialRead;
    } else {
      if (const char* error = importer.GetErrorString()) say(error);
      code = kTrialNullScene;
    }
  } catch (const std::exception& e) {
    say(e.what());
  } catch (...) {
  }
  // _exit: Assimp's scene and whatever it leaked on a bad file go with the process (no
  // destructors, no leak check under AddressSanitizer: the cooker's own read is checked).
  _exit(code);
}
