//===- Main.cpp - Entry point of compiled Weft programs -------------------===//

#include "weft/rt/Program.h"

int main(int argc, char **argv) {
  return weft::rt::runProgram(weft_program, argc, argv);
}
