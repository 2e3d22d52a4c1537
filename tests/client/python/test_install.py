"""The package as a user installs it: pip, from the repository, into a venv that sees Debian's
grpcio and protobuf; the build generates the gRPC modules from proto/."""
import os
import pathlib
import shutil
import subprocess
import sys

REPOSITORY = pathlib.Path(__file__).resolve().parents[3]


def test_pip_installs_the_client_into_a_venv_and_it_calls_the_server(server, tmp_path):
    # A copy, so that pip's build directories stay out of the working tree.
    source = tmp_path / "repo"
    shutil.copytree(REPOSITORY / "client" / "python", source / "client" / "python",
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    shutil.copytree(REPOSITORY / "proto", source / "proto",
                    ignore=shutil.ignore_patterns("etcd-api"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation",
                          "--no-index", str(source / "client" / "python")],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    installed = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / \
        "site-packages" / "resched"
    assert (installed / "v1" / "service_pb2_grpc.py").is_file(), "generated at install"
    # Without the tests' PYTHONPATH, which holds the package as the build made it.
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    call = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import resched, sys\n"
         "print(resched.__file__)\n"
         "with resched.Client(sys.argv[1]) as c:\n"
         "    print(len([a for a in c.algorithms() if a.name == 'bl_cpar_bd_cpar']))\n",
         server.address], capture_output=True, text=True, cwd=tmp_path, env=environment)
    assert call.returncode == 0, call.stderr
    module, found = call.stdout.split()
    assert pathlib.Path(module).is_relative_to(venv) and found == "1"
