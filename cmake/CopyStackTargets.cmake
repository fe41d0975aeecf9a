# Shared target settings. Everything goes through target_* commands.

# Warnings for code copystack owns.
function(copystack_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter)
endfunction()

# Settings for code that links against LLVM's headers (passes, plugin).
function(copystack_llvm_target target)
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS})
  target_compile_definitions(${target} PRIVATE ${LLVM_DEFINITIONS})
  if(NOT LLVM_ENABLE_RTTI)
    target_compile_options(${target} PRIVATE -fno-rtti)
  endif()
  copystack_warnings(${target})
endfunction()
