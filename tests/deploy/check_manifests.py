#!/usr/bin/env python3
"""Checks deploy/ the way `kubectl apply --dry-run=server` would reject it, as far as that can be done
without a cluster: every document has apiVersion, kind and a valid metadata.name for its kind; a Deployment's
selector matches its pod template's labels; every container has a name, an image, probes on declared
ports, volume mounts naming declared volumes, limits not below requests; claims, secrets, services and
ports referred to exist in the file; the Service selects the pods; the Ingress points at the Service.
Then the project's own rules: non-root, read-only root file system, a ReadWriteMany claim mounted at the
base dir, probes on /healthz and /readyz, and a memory limit that holds --max-sessions x
--max-session-memory. Also the Containerfile's essentials. Usage: check_manifests.py DEPLOY_DIR
The checker checks itself first: each of a list of broken copies must be refused."""
import copy
import re
import sys
from pathlib import Path

import yaml

API = {"Deployment": "apps/v1", "Service": "v1", "PersistentVolumeClaim": "v1", "Secret": "v1",
       "Ingress": "networking.k8s.io/v1", "ConfigMap": "v1"}
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS1123_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "k": 10**3, "M": 10**6, "G": 10**9, "m": 1e-3, "": 1}


def quantity(q):
    m = re.fullmatch(r"([0-9.]+)(Ki|Mi|Gi|Ti|k|M|G|m)?", str(q))
    if not m:
        raise ValueError(f"not a quantity: {q!r}")
    return float(m.group(1)) * UNITS[m.group(2) or ""]


def check(docs, containerfile):
    errors = []
    err = errors.append
    by_kind = {}
    for i, d in enumerate(docs):
        where = f"document {i + 1}"
        if not isinstance(d, dict):
            err(f"{where}: not a mapping")
            continue
        kind, api = d.get("kind"), d.get("apiVersion")
        if not kind or not api:
            err(f"{where}: apiVersion and kind are required")
            continue
        if kind in API and API[kind] != api:
            err(f"{where}: {kind} is {API[kind]}, not {api}")
        name = (d.get("metadata") or {}).get("name")
        rule = DNS1123_LABEL if kind == "Service" else DNS1123_SUBDOMAIN
        if not isinstance(name, str) or not rule.match(name) or len(name) > (63 if kind == "Service" else 253):
            err(f"{where} ({kind}): metadata.name {name!r} is not a valid name")
            continue
        by_kind.setdefault(kind, {})[name] = d

    claims, secrets = by_kind.get("PersistentVolumeClaim", {}), by_kind.get("Secret", {})
    for name, pvc in claims.items():
        spec = pvc.get("spec") or {}
        if "ReadWriteMany" not in (spec.get("accessModes") or []):
            err(f"PersistentVolumeClaim {name}: replicas share it: accessModes needs ReadWriteMany")
        if not ((spec.get("resources") or {}).get("requests") or {}).get("storage"):
            err(f"PersistentVolumeClaim {name}: spec.resources.requests.storage is required")

    pod_labels, port_names = {}, set()
    deployments = by_kind.get("Deployment", {})
    if not deployments:
        err("no Deployment")
    for name, dep in deployments.items():
        where = f"Deployment {name}"
        spec = dep.get("spec") or {}
        tmpl = spec.get("template") or {}
        labels = (tmpl.get("metadata") or {}).get("labels") or {}
        match = (spec.get("selector") or {}).get("matchLabels") or {}
        if not match:
            err(f"{where}: spec.selector.matchLabels is required")
        for k, v in match.items():
            if labels.get(k) != v:
                err(f"{where}: selector {k}={v} does not match the template's labels")
        pod_labels[name] = labels
        pod = tmpl.get("spec") or {}
        volumes = {}
        for v in pod.get("volumes") or []:
            volumes[v.get("name")] = v
            if "persistentVolumeClaim" in v and v["persistentVolumeClaim"].get("claimName") not in claims:
                err(f"{where}: volume {v.get('name')} claims {v['persistentVolumeClaim'].get('claimName')!r}, not in the file")
        psc = pod.get("securityContext") or {}
        containers = pod.get("containers") or []
        if not containers:
            err(f"{where}: spec.template.spec.containers is required")
        for c in containers:
            cw = f"{where} container {c.get('name')!r}"
            if not c.get("name") or not DNS1123_LABEL.match(str(c.get("name"))):
                err(f"{cw}: a valid name is required")
            if not c.get("image"):
                err(f"{cw}: image is required")
            ports = {}
            for p in c.get("ports") or []:
                if not isinstance(p.get("containerPort"), int) or not 0 < p["containerPort"] < 65536:
                    err(f"{cw}: containerPort must be a port number")
                if p.get("name"):
                    ports[p["name"]] = p.get("containerPort")
            port_names.update(ports)
            for probe in ("readinessProbe", "livenessProbe"):
                pr = c.get(probe)
                if not pr:
                    err(f"{cw}: {probe} is required")
                    continue
                get = pr.get("httpGet") or {}
                port = get.get("port")
                if not get.get("path") or port is None:
                    err(f"{cw}: {probe}.httpGet needs a path and a port")
                elif isinstance(port, str) and port not in ports:
                    err(f"{cw}: {probe} uses port {port!r}, not a declared port name")
            paths = {(c.get(p) or {}).get("httpGet", {}).get("path") for p in ("readinessProbe", "livenessProbe")}
            if paths != {"/healthz", "/readyz"}:
                err(f"{cw}: probes must be /readyz (readiness) and /healthz (liveness), got {sorted(map(str, paths))}")
            mounts = {}
            for m in c.get("volumeMounts") or []:
                if m.get("name") not in volumes:
                    err(f"{cw}: volumeMount {m.get('name')!r} names no volume of the pod")
                if not str(m.get("mountPath", "")).startswith("/"):
                    err(f"{cw}: volumeMount {m.get('name')!r} needs an absolute mountPath")
                mounts[m.get("mountPath")] = m.get("name")
            for e in c.get("env") or []:
                ref = ((e.get("valueFrom") or {}).get("secretKeyRef")) or None
                if ref:
                    s = secrets.get(ref.get("name"))
                    if s is None:
                        err(f"{cw}: env {e.get('name')} refers to secret {ref.get('name')!r}, not in the file")
                    elif ref.get("key") not in {**(s.get("data") or {}), **(s.get("stringData") or {})}:
                        err(f"{cw}: env {e.get('name')} refers to key {ref.get('key')!r}, not in secret {ref.get('name')}")
            res = c.get("resources") or {}
            lim, req = res.get("limits") or {}, res.get("requests") or {}
            for r in ("cpu", "memory"):
                if r not in lim or r not in req:
                    err(f"{cw}: resources.requests and resources.limits need {r}")
                elif quantity(lim[r]) < quantity(req[r]):
                    err(f"{cw}: the {r} limit is below its request")
            csc = c.get("securityContext") or {}
            if not csc.get("readOnlyRootFilesystem"):
                err(f"{cw}: securityContext.readOnlyRootFilesystem must be true")
            if not (csc.get("runAsNonRoot") or psc.get("runAsNonRoot")) or (csc.get("runAsUser", psc.get("runAsUser")) == 0):
                err(f"{cw}: must run as a non-root user")
            args = {}
            for a in c.get("args") or []:
                k, _, v = str(a).partition("=")
                args[k] = v
            base = args.get("--base-dir")
            if not base or mounts.get(base) is None or "persistentVolumeClaim" not in volumes.get(mounts[base], {}):
                err(f"{cw}: --base-dir must be the mount of a persistentVolumeClaim volume")
            try:
                need = int(args["--max-sessions"]) * int(args["--max-session-memory"])
                if "memory" in lim and quantity(lim["memory"]) < need:
                    err(f"{cw}: the memory limit {lim['memory']} is below --max-sessions x --max-session-memory ({need} bytes)")
            except (KeyError, ValueError):
                err(f"{cw}: --max-sessions and --max-session-memory must be given (they size the memory limit)")
            envs = {e.get("name") for e in c.get("env") or []}
            if "BASHKIT_REPLICA_ID" not in envs and "--replica-id" not in args:
                err(f"{cw}: each replica needs a unique id (BASHKIT_REPLICA_ID from the pod name)")

    services = by_kind.get("Service", {})
    for name, svc in services.items():
        spec = svc.get("spec") or {}
        sel = spec.get("selector") or {}
        if not sel or not any(all(l.get(k) == v for k, v in sel.items()) for l in pod_labels.values()):
            err(f"Service {name}: its selector matches no Deployment's pods")
        for p in spec.get("ports") or []:
            if not isinstance(p.get("port"), int):
                err(f"Service {name}: ports[].port must be a number")
            t = p.get("targetPort")
            if isinstance(t, str) and t not in port_names:
                err(f"Service {name}: targetPort {t!r} is not a container port name")
    for name, ing in by_kind.get("Ingress", {}).items():
        for rule in (ing.get("spec") or {}).get("rules") or []:
            for p in ((rule.get("http") or {}).get("paths")) or []:
                if p.get("pathType") not in ("Exact", "Prefix", "ImplementationSpecific"):
                    err(f"Ingress {name}: pathType is required (Exact, Prefix or ImplementationSpecific)")
                svc = ((p.get("backend") or {}).get("service")) or {}
                s = services.get(svc.get("name"))
                if s is None:
                    err(f"Ingress {name}: backend service {svc.get('name')!r} is not in the file")
                    continue
                pn = (svc.get("port") or {}).get("name")
                if pn and pn not in {sp.get("name") for sp in (s.get("spec") or {}).get("ports") or []}:
                    err(f"Ingress {name}: backend port {pn!r} is not a port of service {svc.get('name')}")

    # The Containerfile: Debian 12, a non-root user, the base dir as a volume, a health check.
    lines = [l.strip() for l in containerfile.splitlines() if l.strip() and not l.strip().startswith("#")]
    froms = [l.split()[1] for l in lines if l.startswith("FROM ")]
    if not froms or not all(f.startswith("debian:12") for f in froms):
        err(f"Containerfile: every stage must be FROM debian:12 (got {froms})")
    users = [l.split()[1] for l in lines if l.startswith("USER ")]
    if not users or users[-1].split(":")[0] in ("0", "root"):
        err("Containerfile: the last USER must be a non-root user")
    if not any(l.startswith("VOLUME ") and "/var/lib/bashkit" in l for l in lines):
        err("Containerfile: VOLUME /var/lib/bashkit (the base dir) is required")
    if not any(l.startswith("HEALTHCHECK ") and "/healthz" in containerfile for l in lines):
        err("Containerfile: a HEALTHCHECK on /healthz is required")
    if not any(l.startswith("CMD ") and "/var/lib/bashkit" in l for l in lines):
        err("Containerfile: the default command must use --base-dir /var/lib/bashkit")
    return errors


def broken_copies(docs):
    """(what, docs) pairs, each with one mistake the checker must find."""
    def dep(ds):
        return next(d for d in ds if d["kind"] == "Deployment")

    def container(ds):
        return dep(ds)["spec"]["template"]["spec"]["containers"][0]

    def mutate(f):
        ds = copy.deepcopy(docs)
        f(ds)
        return ds
    yield "no image", mutate(lambda ds: container(ds).pop("image"))
    yield "selector mismatch", mutate(lambda ds: dep(ds)["spec"]["selector"]["matchLabels"].update({"app.kubernetes.io/name": "other"}))
    yield "mount of no volume", mutate(lambda ds: container(ds)["volumeMounts"][0].update({"name": "sesions"}))
    yield "memory below budget", mutate(lambda ds: container(ds)["resources"]["limits"].update({"memory": "1Gi"}))
    yield "no kind", mutate(lambda ds: ds[0].pop("kind"))
    yield "bad name", mutate(lambda ds: ds[0]["metadata"].update({"name": "Bad_Name"}))
    yield "no probe", mutate(lambda ds: container(ds).pop("livenessProbe"))
    yield "writable root", mutate(lambda ds: container(ds)["securityContext"].update({"readOnlyRootFilesystem": False}))
    yield "claim not RWX", mutate(lambda ds: next(d for d in ds if d["kind"] == "PersistentVolumeClaim")["spec"].update({"accessModes": ["ReadWriteOnce"]}))
    yield "probe on undeclared port", mutate(lambda ds: container(ds)["readinessProbe"]["httpGet"].update({"port": "web"}))
    yield "service selects nothing", mutate(lambda ds: next(d for d in ds if d["kind"] == "Service")["spec"].update({"selector": {"app": "x"}}))


def main():
    deploy = Path(sys.argv[1])
    manifests = sorted((deploy / "kubernetes").glob("*.yaml"))
    if not manifests:
        print(f"no manifests under {deploy / 'kubernetes'}")
        return 1
    docs = [d for m in manifests for d in yaml.safe_load_all(m.read_text()) if d is not None]
    containerfile = (deploy / "Containerfile").read_text()
    for what, bad in broken_copies(docs):
        if not check(bad, containerfile):
            print(f"the checker missed a broken manifest: {what}")
            return 1
    if not check(docs, "FROM alpine\nUSER root\n"):
        print("the checker missed a broken Containerfile")
        return 1
    errors = check(docs, containerfile)
    for e in errors:
        print(e)
    print(f"{len(docs)} documents in {len(manifests)} files: {'OK' if not errors else f'{len(errors)} errors'}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
