#!/usr/bin/env bash
# Replays a snapshot on a real kube-scheduler v1.37.2 (see cluster.sh): all non-pod
# objects first (claim status applied through the status subresource), then bound pods,
# then pending pods one at a time in file order, each until bound or unschedulable (a pod
# group's pods together; preemption victims are force-deleted, see reap).
# Dumps the resulting pods and claims. Usage: replay.sh SNAPSHOT.yaml OUTDIR (KUBECONFIG set)
# drasim's copy of ../shared/oracle/replay.sh, with two additions the preemption
# and gang recordings (30-43) need: PodDisruptionBudget status applied through the
# status subresource (no disruption controller runs) and SETTLE=N seconds of
# reaping before the dump (gangs retried after their backoff).
set -euo pipefail
snap=${1:?snapshot}; out=${2:?outdir}; mkdir -p "$out/pods" "$out/status"
python3 - "$snap" "$out" <<'PY'
import sys, yaml, os, json
docs=[d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
items=[]
for d in docs:
    items += d.get("items", []) if d.get("kind","").endswith("List") else [d]
rank={"Namespace":0,"PriorityClass":0,"PodDisruptionBudget":1,"Workload":1,"PodGroup":2,"DeviceClass":1,"Node":2,"ResourceSlice":3,"DeviceTaintRule":3,"ResourceClaimTemplate":4,"ResourceClaim":4}
pods=[i for i in items if i.get("kind")=="Pod"]
base=[i for i in items if i.get("kind")!="Pod"]
base.sort(key=lambda i: rank.get(i.get("kind"),9))
base += [p for p in pods if p["spec"].get("nodeName")]
pending=[p for p in pods if not p["spec"].get("nodeName")]
yaml.safe_dump_all(base, open(os.path.join(sys.argv[2],"base.yaml"),"w"))
for i in base:
    if i.get("kind")=="ResourceClaim" and i.get("status"):
        m=i["metadata"]
        json.dump({"status":i["status"]}, open(os.path.join(sys.argv[2],"status","%s_%s.json"%(m.get("namespace","default"),m["name"])),"w"))
    # preempt: PodDisruptionBudget status (no disruption controller runs)
    if i.get("kind")=="PodDisruptionBudget" and i.get("status"):
        m=i["metadata"]
        os.makedirs(os.path.join(sys.argv[2],"pdbstatus"), exist_ok=True)
        json.dump({"status":i["status"]}, open(os.path.join(sys.argv[2],"pdbstatus","%s_%s.json"%(m.get("namespace","default"),m["name"])),"w"))
# A pod group's pods (spec.schedulingGroup.podGroupName) are created together, where its first pod
# stands in file order: kube-scheduler waits for the whole gang before it tries any of them.
batches, where = [], {}
for p in pending:
    g = ((p["spec"].get("schedulingGroup") or {}).get("podGroupName"))
    key = (p["metadata"].get("namespace","default"), g)
    if g and key in where:
        batches[where[key]].append(p); continue
    if g: where[key] = len(batches)
    batches.append([p])
for n,b in enumerate(batches):
    yaml.safe_dump_all(b, open(os.path.join(sys.argv[2],"pods","%05d.yaml"%n),"w"))
PY
kubectl create --validate=false -f "$out/base.yaml" >/dev/null
for f in "$out"/status/*.json; do
  [ -e "$f" ] || continue
  b=$(basename "$f" .json); ns=${b%%_*}; name=${b#*_}
  kubectl -n "$ns" patch resourceclaim "$name" --subresource=status --type=merge --patch-file "$f" >/dev/null
done
for f in "$out"/pdbstatus/*.json; do
  [ -e "$f" ] || continue
  b=$(basename "$f" .json); ns=${b%%_*}; name=${b#*_}
  kubectl -n "$ns" patch poddisruptionbudget "$name" --subresource=status --type=merge --patch-file "$f" >/dev/null
done
# No kubelet runs: pods being deleted (preemption victims) are removed at once, as if they had
# stopped; their names go to OUT/preempted.txt.
reap() {
  kubectl get pods -A -o jsonpath='{range .items[?(@.metadata.deletionTimestamp)]}{.metadata.namespace} {.metadata.name}{"\n"}{end}' |
  while read -r ns name; do
    [ -n "$name" ] || continue
    echo "$ns/$name" >> "$out/preempted.txt"
    kubectl -n "$ns" delete pod "$name" --grace-period=0 --force >/dev/null 2>&1 || true
  done
}
touch "$out/preempted.txt"
for f in "$out"/pods/*.yaml; do
  [ -e "$f" ] || continue
  names=$(python3 -c 'import sys,yaml
for d in yaml.safe_load_all(open(sys.argv[1])): print(d["metadata"].get("namespace","default")+"/"+d["metadata"]["name"])' "$f")
  kubectl create --validate=false -f "$f" >/dev/null
  for nsname in $names; do
    ns=${nsname%%/*}; name=${nsname#*/}
    # until bound, or unschedulable with no node nominated (a nominated pod waits for its victims)
    for i in $(seq 1 300); do
      st=$(kubectl -n "$ns" get pod "$name" -o jsonpath='{.spec.nodeName}|{.status.conditions[?(@.type=="PodScheduled")].reason}|{.status.nominatedNodeName}' 2>/dev/null) || break
      case "$st" in ?*'|'*) break;; *'|Unschedulable|'|*'|SchedulerError|') [ "$i" -gt 5 ] && break;; esac
      reap; sleep 0.2
    done
  done
  reap
done
# preempt: SETTLE=N waits N seconds more before the dump, reaping, so that gangs retried after
# their backoff (up to 10 s times the square root of their size) have had their last attempt.
for i in $(seq 1 $(( ${SETTLE:-0} * 5 ))); do reap; sleep 0.2; done
kubectl get pods -A -o yaml > "$out/pods.out.yaml"
kubectl get resourceclaims -A -o yaml > "$out/claims.out.yaml"
echo "replayed $(ls "$out"/pods | wc -l) pending pods into $out"
