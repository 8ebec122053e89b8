"""Reads deploy/k8s/*.yaml and prints one line per check: "ok NAME" or "FAIL NAME: WHY".

Every container that runs one of our programs passes only flags that program's --help lists;
every secret key and service a manifest names is defined by one of them; a postgresql:// location
holds no password (Tessera refuses one).
"""
import glob
import re
import subprocess
import sys

import yaml

PROGRAMS = {
    "tessera": "cli/tessera",
    "tessera-tracker": "tracker/tessera-tracker",
    "tessera-rpc-server": "rpc_server/tessera-rpc-server",
}


_reported = set()


def report(name, ok, why=""):
    if name in _reported and ok:
        return
    _reported.add(name)
    print(("ok " + name) if ok else ("FAIL %s: %s" % (name, why)))


def main():
    docs = []
    for path in sorted(glob.glob("deploy/k8s/*.yaml")):
        with open(path) as f:
            docs += [(path, d) for d in yaml.safe_load_all(f) if d]
    report("the manifests parse", len(docs) >= 8, "%d documents" % len(docs))
    secrets = {(d["metadata"]["name"], k) for _, d in docs if d["kind"] == "Secret"
               for k in d.get("stringData", {})}
    services = {d["metadata"]["name"] for _, d in docs if d["kind"] == "Service"}
    text = "\n".join(open(p).read() for p in glob.glob("deploy/k8s/*.yaml"))
    for ref in re.findall(r"secretKeyRef: \{name: ([^,\s]+), key: ([^}\s]+)\}", text):
        report("secret %s/%s is defined" % ref, ref in secrets, "no such key")
    for service in re.findall(r"([a-z-]+)\.tessera\.svc", text):
        report("service %s is defined" % service, service in services, "no such Service")
    for uri in re.findall(r"postgresql://\S+", text):
        report("%s holds no password" % uri, ":" not in uri.split("@")[0][len("postgresql://"):],
               "passwords go in PGPASSWORD")
    for path, d in docs:
        spec = d.get("spec", {}).get("template", {}).get("spec", {})
        for c in spec.get("containers", []):
            command = c.get("command", [])
            if not command or command[0] not in PROGRAMS:
                continue
            argv = [PROGRAMS[command[0]]]
            rest = command[1:]
            if command[0] == "tessera":
                argv.append(rest[0])
                rest = rest[1:]
            help_text = subprocess.run(argv + ["--help"], capture_output=True, text=True).stdout
            for arg in rest:
                flag = arg.split("=")[0]
                program = " ".join(command[:2]) if command[0] == "tessera" else command[0]
                report("%s: %s takes %s" % (path, program, flag),
                       re.search(r"(^|[ ,])%s\b" % re.escape(flag), help_text, re.M) is not None,
                       "not in its --help")


if __name__ == "__main__":
    sys.exit(main())
