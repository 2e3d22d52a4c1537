"""Generates the package's gRPC modules from the repository's proto/ with protoc.

The resched.v1 modules land in resched/v1/ (they import each other as resched.v1.*, which the
package's name makes true); google.rpc's status and error details, which the client reads errors
with, land in resched/_rpc/ so that they never shadow another installed google.rpc.

usage: python3 generate_api.py OUT_DIR     (OUT_DIR receives resched/v1 and resched/_rpc)
"""
import pathlib
import shutil
import subprocess
import sys
import tempfile

PROTO_ROOT = pathlib.Path(__file__).resolve().parent.parent.parent / "proto"
API_PROTOS = ["resched/v1/runtime_model.proto", "resched/v1/types.proto",
              "resched/v1/service.proto"]
RPC_PROTOS = ["google/rpc/status.proto", "google/rpc/error_details.proto"]


def tool(name, package):
    path = shutil.which(name)
    if path is None:
        sys.exit(f"generate_api: {name} is missing (Debian package {package})")
    return path


def generate(out_dir):
    if not (PROTO_ROOT / API_PROTOS[0]).is_file():
        sys.exit(f"generate_api: no {API_PROTOS[0]} under {PROTO_ROOT}: build from the repository")
    protoc = tool("protoc", "protobuf-compiler")
    plugin = tool("grpc_python_plugin", "protobuf-compiler-grpc")
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([protoc, f"--proto_path={PROTO_ROOT}", f"--python_out={tmp}",
                        f"--grpc_python_out={tmp}", f"--plugin=protoc-gen-grpc_python={plugin}",
                        *API_PROTOS, *RPC_PROTOS], check=True)
        api = out_dir / "resched" / "v1"
        rpc = out_dir / "resched" / "_rpc"
        for target in (api, rpc):
            shutil.rmtree(target, ignore_errors=True)
            target.mkdir(parents=True)
            (target / "__init__.py").write_text('"""Generated from proto/ by generate_api.py."""\n')
        for module in (pathlib.Path(tmp) / "resched" / "v1").glob("*.py"):
            shutil.move(module, api / module.name)
        for module in (pathlib.Path(tmp) / "google" / "rpc").glob("*_pb2.py"):
            shutil.move(module, rpc / module.name)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    generate(pathlib.Path(sys.argv[1]))
