package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func client(kubeconfig string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	// The scenarios create and watch many objects at once: client-go's
	// default of 5 requests a second would delay the harness's own
	// requests (an update that starts a rollout) by seconds.
	cfg.QPS, cfg.Burst = 200, 400
	return kubernetes.NewForConfig(cfg)
}

// waitFor waits until the apiserver answers /readyz or the node is Ready,
// for at most two minutes, and gives up at once when process pid exits.
func waitFor(kubeconfig, what, node string, pid int) error {
	cs, err := client(kubeconfig)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(2 * time.Minute)
	var last error
	for time.Now().Before(deadline) {
		if pid > 0 && syscall.Kill(pid, 0) != nil {
			return fmt.Errorf("process %d exited", pid)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		switch what {
		case "apiserver":
			_, last = cs.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		case "node":
			var n *corev1.Node
			n, last = cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
			if last == nil {
				last = fmt.Errorf("node %s is not Ready", node)
				for _, c := range n.Status.Conditions {
					if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
						last = nil
					}
				}
			}
		default:
			cancel()
			return fmt.Errorf("wait -for %q: apiserver or node", what)
		}
		cancel()
		if last == nil {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s not ready after 2 minutes: %v", what, last)
}

// observerRules is the read-only ClusterRole of the `podlint observe`
// issue: what a watch of a rollout or a Job needs, nothing that writes.
var observerRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"pods", "events"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"apps"}, Resources: []string{"replicasets", "deployments", "statefulsets", "daemonsets"}, Verbs: []string{"get", "list", "watch"}},
	{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: []string{"get", "list", "watch"}},
}

// setup binds the observer ClusterRole to the observer's user and checks,
// with the observer's own kubeconfig, that it may list Pods and may not
// create one.
func setup(kubeconfig, observerKubeconfig string) error {
	cs, err := client(kubeconfig)
	if err != nil {
		return err
	}
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: observerUser}, Rules: observerRules}
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: observerUser},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: observerUser},
		Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: observerUser}},
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if observerKubeconfig == "" {
		return nil
	}
	obs, err := client(observerKubeconfig)
	if err != nil {
		return err
	}
	// RBAC takes effect once the apiserver's informers have the binding.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err = obs.CoreV1().Pods("").List(ctx, metav1.ListOptions{Limit: 1})
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("the observer cannot list Pods: %v", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "observer-must-not-create", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "podlint.local/busybox:e2e"}}}}
	_, err = obs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if !apierrors.IsForbidden(err) {
		return fmt.Errorf("the observer's create of a Pod gave %v, want Forbidden", err)
	}
	fmt.Fprintln(os.Stderr, "e2e-cluster: the observer may list Pods and may not create one")
	return nil
}
