// Package kubeconfig connects podlint observe to the API server of a
// kubeconfig context with client-go's loader and REST transport, so that it
// authenticates as kubectl does. It is linked only into podlint-observe
// (cmd/podlint-observe), which podlint starts for a live cluster: client-go's
// package initialization would otherwise cost every podlint check
// (docs/performance.md, "Start-up"; deps.Unlinked).
//
// Like every package of podlint, it makes no API promise.
package kubeconfig

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/podlint/podlint/internal/observe"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Connect reads the kubeconfig as kubectl does ($KUBECONFIG, else
// ~/.kube/config), for kubeContext (the current one when ""), and reads
// namespace (the context's when "" and not all), or every namespace with
// all. It authenticates as kubectl would, which for some clusters runs
// the credential plugin the kubeconfig names (docs/observe.md).
func Connect(kubeContext, namespace string, all bool) (*observe.Cluster, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: kubeContext})
	raw, err := cc.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig: %v", err)
	}
	name := kubeContext
	if name == "" {
		name = raw.CurrentContext
	}
	if name == "" {
		return nil, errors.New("kubeconfig: no current context (give --context, or run kubectl config use-context)")
	}
	if _, ok := raw.Contexts[name]; !ok {
		return nil, fmt.Errorf("kubeconfig: no context %q", name)
	}
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("kubeconfig context %s: %v", name, err)
	}
	if !all && namespace == "" {
		if namespace, _, err = cc.Namespace(); err != nil {
			return nil, fmt.Errorf("kubeconfig context %s: %v", name, err)
		}
	}
	if all {
		namespace = ""
	}
	cfg.UserAgent = "podlint-observe"
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, fmt.Errorf("kubeconfig context %s: %v", name, err)
	}
	host := cfg.Host
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	return observe.NewCluster(name, namespace, strings.TrimRight(host, "/")+strings.TrimRight(cfg.APIPath, "/"), client), nil
}

// Live records the cluster of req's kubeconfig context (observe.Record):
// observe.Request.Live in podlint-observe, and in the tests that observe a
// cluster in-process.
func Live(ctx context.Context, req observe.Request) (*observe.Profile, error) {
	c, err := Connect(req.Context, req.Namespace, req.All)
	if err != nil {
		return nil, err
	}
	return observe.Record(ctx, c, req)
}
