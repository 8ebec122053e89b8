// Run under qemu-aarch64 by arm_board_test: prints "ok" when the emulator can start a thread
// (it hung when tools/qemu_aarch64.sh handed qemu the multiarch libc; the test then fails, saying
// so, rather than timing out somewhere in the fleet).
#include <cstdio>
#include <thread>

int main() {
  std::thread thread([] {});
  thread.join();
  std::puts("ok");
  return 0;
}
