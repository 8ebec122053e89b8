// Run under qemu-aarch64 by arm_board_test: prints "ok" when the emulator can start a thread
// (qemu 7.2 hangs doing so on some host kernels; the test then skips, saying so).
#include <cstdio>
#include <thread>

int main() {
  std::thread thread([] {});
  thread.join();
  std::puts("ok");
  return 0;
}
