#!/bin/sh
# Records the reference output of the real `helm template` and `kustomize build`
# into golden/. Run from this folder with helm and kustomize on PATH, built from
# the same module versions as the libraries podlint links (see README.md):
#   GOBIN=/tmp/rtools go install helm.sh/helm/v3/cmd/helm@v3.22.0
#   GOBIN=/tmp/rtools go install sigs.k8s.io/kustomize/kustomize/v5@v5.8.2
# Charts and kustomizations left out on purpose: helm/missing-dep and
# helm/syntax-error (helm template refuses them), kustomize/remote-base (it
# would fetch from GitHub) and kustomize/features/components/probes (a
# Component cannot be built on its own); their tests check the findings.
set -eu
KV=1.37
helm_t() { # name chart [helm flags]
	name=$1 chart=$2; shift 2
	helm template "$chart" --kube-version "$KV" "$@" > "golden/$name.yaml"
}
helm_t helm-podinfo helm/podinfo
helm_t helm-podinfo-prod helm/podinfo --values helm/podinfo/values-prod.yaml
helm_t helm-ingress-nginx helm/ingress-nginx
helm_t helm-ingress-nginx-ci-deployment helm/ingress-nginx --values helm/ingress-nginx/ci/controller-deployment-values.yaml
helm_t helm-ingress-nginx-ci-daemonset helm/ingress-nginx --values helm/ingress-nginx/ci/controller-daemonset-metrics-values.yaml
helm_t helm-promtail helm/promtail
helm_t helm-promtail-ci-deployment helm/promtail --values helm/promtail/ci/deployment-values.yaml
helm_t helm-subchart helm/subchart --set token=x
helm template shop helm/podinfo --kube-version "$KV" --namespace web --set replicaCount=3 > golden/helm-podinfo-named.yaml
for k in helloWorld podinfo ldap/base ldap/overlays/staging ldap/overlays/production multibases \
	multibases/dev multibases/staging multibases/production podinfo-deploy/overlays/dev \
	podinfo-deploy/overlays/staging podinfo-deploy/overlays/production probe-patch/overlay \
	features/overlay features/base probe-patch/base multibases/base podinfo-deploy/bases/backend \
	podinfo-deploy/bases/cache podinfo-deploy/bases/database podinfo-deploy/bases/frontend; do
	kustomize build "kustomize/$k" > "golden/kustomize-$(echo "$k" | tr / -).yaml"
done
