# The IR suite: each test runs one copystack property through opt-19 (with
# the LLVM-only plugin) or llc-19 and checks the result with FileCheck.
import os
import lit.formats

config.name = "copystack-ir"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ll", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.cs_exec_root
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in"]

bin_dir = config.cs_llvm_bin
config.substitutions.append(
    ("%opt", f"{bin_dir}/opt -load-pass-plugin={config.cs_pass_plugin}"))
config.substitutions.append(("%llc", f"{bin_dir}/llc"))
config.substitutions.append(
    ("%clang_cs", f"{config.cs_clang} -fplugin={config.cs_clang_plugin} "
                  f"-I{config.cs_include} -I{config.cs_generated_include}"))
config.substitutions.append(("%clang", config.cs_clang))
config.substitutions.append(("%cs_plugin", config.cs_clang_plugin))
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.environment.get("PATH", "")])
