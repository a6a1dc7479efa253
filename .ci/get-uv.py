"""Fetch uv (a fast Python package installer) from PyPI into a folder: `get-uv.py VERSION DIR`.

pip takes 12 minutes of a 2-core machine's time to install the Chat2Graph tests' pinned
packages; uv takes 25 seconds. Installing uv itself with pip costs a minute, so this reads
PyPI's JSON index, downloads the wheel for this machine, checks its SHA-256 against the
index, and unpacks the one binary. Exits non-zero (and .ci/chat2graph-tests falls back to
pip) when any of that fails.
"""
import hashlib
import io
import json
import os
import platform
import sys
import urllib.parse
import urllib.request
import zipfile

INDEX = "https://pypi.org/pypi/uv/json"


def wheel_for_this_machine(meta, version):
    arch = platform.machine()
    for f in meta["releases"].get(version, []):
        name = f["filename"]
        if name.endswith(".whl") and "manylinux" in name and arch in name:
            return f
    sys.exit("get-uv: no manylinux %s wheel of uv %s on PyPI" % (arch, version))


def main():
    version, dest = sys.argv[1], sys.argv[2]
    with urllib.request.urlopen(INDEX, timeout=60) as r:
        meta = json.load(r)
    f = wheel_for_this_machine(meta, version)
    with urllib.request.urlopen(urllib.parse.urljoin(INDEX, f["url"]), timeout=300) as r:
        data = r.read()
    if hashlib.sha256(data).hexdigest() != f["digests"]["sha256"]:
        sys.exit("get-uv: %s does not match PyPI's SHA-256" % f["filename"])
    wheel = zipfile.ZipFile(io.BytesIO(data))
    binary = next(n for n in wheel.namelist() if n.endswith(".data/scripts/uv"))
    os.makedirs(dest, exist_ok=True)
    path = os.path.join(dest, "uv")
    with open(path + ".part", "wb") as out:
        out.write(wheel.read(binary))
    os.chmod(path + ".part", 0o755)
    os.replace(path + ".part", path)


if __name__ == "__main__":
    main()
