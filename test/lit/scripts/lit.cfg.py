# The scripts suite: the project's own helper scripts, run on fixtures.
import os
import lit.formats

config.name = "copystack-scripts"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.cs_exec_root
config.excludes = ["lit.cfg.py", "lit.site.cfg.py.in", "Inputs"]

config.substitutions.append(("%scripts", config.cs_scripts))
config.substitutions.append(("%man", config.cs_man))
config.substitutions.append(("%cc", config.cs_bin + "/copystack-cc"))
# The e2e suite's compile cache (its own test: compile_cache.test).
config.substitutions.append(
    ("%cache", os.path.join(config.test_source_root, "..", "e2e", "Inputs",
                            "compile_cache.py")))
config.environment["PATH"] = os.pathsep.join(
    [config.cs_llvm_bin, config.environment.get("PATH", "")])
# scripts/plot-trace draws with Debian's python3-matplotlib, which
# scripts/setup does not install (the plotting scripts install it when
# run): its test runs where it is.
import subprocess
if subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                  capture_output=True).returncode == 0:
    config.available_features.add("matplotlib")
