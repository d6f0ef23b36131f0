// stepfault: the command line. Subcommands are added as their capabilities land.
#include <cstdio>

int main() {
  std::puts("stepfault: no commands yet");
  return 0;
}
