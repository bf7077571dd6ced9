# Loops start on a 32-byte boundary in everything this project builds (the
# library, the apps, the oneTBB/OpenMP peers and the tests alike), so an
# inner loop of up to 32 bytes never straddles a 64-byte line. Without it
# GCC aligns loops to 8 or 16 bytes, and where a loop lands depends on the
# size of unrelated code linked before it. On the 2-core VM (a Xeon with
# Golden Cove cores) matmul's 32-byte inner loop, its code unchanged, ran
# 1.33x slower after fib's kernels grew and moved it across a 64-byte
# line; aligned, it ran as fast as before, and the sequential fib 1.4x
# faster (docs/results, "Task bodies declared inline"; the VM has no
# counters to show the front end at work). The cost is padding before loops.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-falign-loops=32 HEIST_HAVE_ALIGN_LOOPS)
if(HEIST_HAVE_ALIGN_LOOPS)
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-falign-loops=32>)
endif()
