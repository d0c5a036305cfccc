import json
T=lambda s: "2026-12-01T"+s+"Z"
def pod(ns,name,owner=None,labels=None,conds=None,cs=None,ics=None,phase="Running",deletion=None,grace=None,containers=("app",),env=True):
    meta={"name":name,"namespace":ns,"uid":"0b5c1d3e-1111-4222-8333-944455556666","creationTimestamp":T("09:59:40"),"resourceVersion":"1234",
          "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"secret\":\"hunter2\"}"}}
    if labels: meta["labels"]=labels
    if owner: meta["ownerReferences"]=[{"apiVersion":"apps/v1" if owner[0]!="Job" else "batch/v1","kind":owner[0],"name":owner[1],"uid":"aaaa-bbbb","controller":True,"blockOwnerDeletion":True}]
    if deletion: meta["deletionTimestamp"]=T(deletion); meta["deletionGracePeriodSeconds"]=grace
    spec={"nodeName":"node-secret-7","containers":[{"name":c,"image":"registry.example/"+c+":1","env":[{"name":"DB_PASSWORD","value":"hunter2"}]} for c in containers]}
    st={"phase":phase,"podIP":"10.244.1.17","hostIP":"192.168.49.2","conditions":conds or [],"containerStatuses":cs or []}
    if ics: st["initContainerStatuses"]=ics
    return {"apiVersion":"v1","kind":"Pod","metadata":meta,"spec":spec,"status":st}
def ready(status,ltt): return [{"type":"Ready","status":status,"lastTransitionTime":T(ltt)}]
def running(name,started,restarts=0,last=None,ready=True):
    c={"name":name,"image":"registry.example/"+name+":1","imageID":"sha256:abc","containerID":"containerd://ff","ready":ready,"restartCount":restarts,"started":True,"state":{"running":{"startedAt":T(started)}},"lastState":{}}
    if last: c["lastState"]={"terminated":{"exitCode":last[0],"reason":last[1],"startedAt":T(last[2]),"finishedAt":T(last[3])}}
    return c
def waiting(name,restarts,last):
    c=running(name,"00:00:00",restarts,last,False); c["state"]={"waiting":{"reason":"CrashLoopBackOff","message":"back-off 40s restarting failed container"}}; return c
def term(name,code,reason,s,f,restarts=0):
    return {"name":name,"image":"x","imageID":"","ready":False,"restartCount":restarts,"state":{"terminated":{"exitCode":code,"reason":reason,"startedAt":T(s),"finishedAt":T(f)}},"lastState":{}}
def rs(ns,name,dep):
    return {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":name,"namespace":ns,"uid":"u","ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":dep,"uid":"d","controller":True}]},"spec":{"replicas":3,"selector":{"matchLabels":{"app":dep}},"template":{"metadata":{"labels":{"app":dep}},"spec":{"containers":[{"name":"app","image":"x"}]}}}}
def job(ns,name,cron):
    return {"apiVersion":"batch/v1","kind":"Job","metadata":{"name":name,"namespace":ns,"uid":"u","ownerReferences":[{"apiVersion":"batch/v1","kind":"CronJob","name":cron,"uid":"c","controller":True}]},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"run","image":"x"}]}}}}
def kill(ns,pod,c,probe,count,first,last):
    return {"apiVersion":"v1","kind":"Event","metadata":{"name":pod+".18e1","namespace":ns,"uid":"e"},"involvedObject":{"kind":"Pod","namespace":ns,"name":pod,"uid":"p","fieldPath":"spec.containers{%s}"%c},
            "reason":"Killing","message":"Container %s failed %s probe, will be restarted"%(c,probe),"source":{"component":"kubelet","host":"node-secret-7"},"firstTimestamp":T(first),"lastTimestamp":T(last),"count":count,"type":"Normal"}
def unhealthy(ns,pod,c,first,last,count):
    return {"apiVersion":"v1","kind":"Event","metadata":{"name":pod+".18e0","namespace":ns},"involvedObject":{"kind":"Pod","namespace":ns,"name":pod,"fieldPath":"spec.containers{%s}"%c},
            "reason":"Unhealthy","message":"Liveness probe failed: Get \"http://10.244.1.17:8080/healthz\": dial tcp 10.244.1.17:8080: connect: connection refused","source":{"component":"kubelet","host":"node-secret-7"},"firstTimestamp":T(first),"lastTimestamp":T(last),"count":count,"type":"Warning"}
def killv1(ns,pod,c,probe,count,first,last):
    return {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":pod+".18e2","namespace":ns},"regarding":{"kind":"Pod","namespace":ns,"name":pod},
            "reason":"Killing","note":"Container %s failed %s probe, will be restarted"%(c,probe),"reportingController":"kubelet","reportingInstance":"node-secret-7","eventTime":None,
            "deprecatedFirstTimestamp":T(first),"deprecatedLastTimestamp":T(last),"deprecatedCount":count,"type":"Normal"}
items=[
 # Deployment web: starts that cross the liveness window (43 s).
 pod("shop","web-6d4b9c-a",("ReplicaSet","web-6d4b9c"),{"app":"web","pod-template-hash":"6d4b9c"},ready("True","10:00:52"),[running("app","10:00:00")]),
 pod("shop","web-6d4b9c-b",("ReplicaSet","web-6d4b9c"),{"app":"web","pod-template-hash":"6d4b9c"},ready("True","10:03:30"),[running("app","10:02:48",2,(137,"Error","10:02:02","10:02:45"))]),
 pod("shop","web-6d4b9c-c",("ReplicaSet","web-6d4b9c"),{"app":"web","pod-template-hash":"6d4b9c"},ready("False","09:59:41"),[waiting("app",4,(137,"Error","10:05:00","10:05:43"))]),
 pod("shop","web-6d4b9c-d",("ReplicaSet","web-6d4b9c"),{"app":"web","pod-template-hash":"6d4b9c"},ready("False","10:20:00"),[term("app",137,"Error","10:01:00","10:20:31")],deletion="10:20:30",grace=30),
 rs("shop","web-6d4b9c","web"),
 kill("shop","web-6d4b9c-b","app","liveness",2,"10:01:58","10:02:45"),
 unhealthy("shop","web-6d4b9c-b","app","10:01:40","10:02:44",6),
 kill("shop","web-6d4b9c-c","app","liveness",4,"10:00:43","10:05:43"),
 # OOMKilled.
 pod("shop","cache-55f7-x",("ReplicaSet","cache-55f7"),{"pod-template-hash":"55f7"},ready("True","10:10:05"),[running("app","10:10:00",1,(137,"OOMKilled","10:00:00","10:09:50"))]),
 rs("shop","cache-55f7","cache"),
 # A StatefulSet killed by its startup probe, in events.k8s.io/v1.
 pod("data","db-0",("StatefulSet","db"),None,ready("False","09:59:41"),[waiting("postgres",3,(137,"Error","10:06:00","10:07:30"))],containers=("postgres",)),
 killv1("data","db-0","postgres","startup",3,"10:01:30","10:07:30"),
 # A CronJob's Job whose Pods failed.
 pod("batch","nightly-29001-abc",("Job","nightly-29001"),None,ready("False","10:12:00"),[term("run",1,"Error","10:11:00","10:11:12")],phase="Failed",containers=("run",)),
 pod("batch","nightly-29001-def",("Job","nightly-29001"),None,ready("False","10:13:00"),[term("run",1,"Error","10:12:30","10:12:40")],phase="Failed",containers=("run",)),
 job("batch","nightly-29001","nightly"),
 # Owner gone: its ReplicaSet is not in the list.
 pod("shop","api-7f9c-zz",("ReplicaSet","api-7f9c"),{"pod-template-hash":"7f9c"},ready("True","10:00:08"),[running("api","10:00:00"),running("proxy","09:59:59")],containers=("api","proxy")),
 # A bare Pod with an init container.
 pod("tools","debug",None,None,ready("True","10:00:03"),[running("app","10:00:00")],ics=[term("migrate",0,"Completed","09:59:50","09:59:58")]),
 # What must never reach a profile.
 {"apiVersion":"v1","kind":"Secret","metadata":{"name":"db","namespace":"shop"},"data":{"password":"aHVudGVyMg=="}},
 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg","namespace":"shop"},"data":{"DB_PASSWORD":"hunter2"}},
]
print(json.dumps({"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":items},indent=1))
