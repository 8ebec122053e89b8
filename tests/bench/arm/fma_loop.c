/* An aarch64 program whose loop executes known instructions: argv[1] iterations of two vector
 * multiply-adds (one lane-indexed), a vector add, a lane broadcast, a load, a store, a counter
 * decrement and a branch. exec_counts_test counts it under qemu-aarch64. */
#include <stdlib.h>

int main(int argc, char** argv) {
  long n = argc > 1 ? atol(argv[1]) : 0;
  float buffer[4] = {0, 0, 0, 0};
  __asm__ volatile(
      "movi v1.4s, #0\n"
      "movi v2.4s, #0\n"
      "cbz %0, 2f\n"
      "1:\n"
      "fmla v0.4s, v1.4s, v2.4s\n"
      "fmla v3.4s, v1.4s, v2.s[1]\n"
      "fadd v4.4s, v1.4s, v2.4s\n"
      "dup v5.4s, v2.s[0]\n"
      "ldr q6, [%1]\n"
      "str q6, [%1]\n"
      "subs %0, %0, #1\n"
      "b.ne 1b\n"
      "2:\n"
      : "+r"(n)
      : "r"(buffer)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "memory", "cc");
  return (int)n;
}
