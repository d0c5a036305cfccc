package main

import (
	"crypto/x509"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s: no PEM block", path)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPKI: the users are who the apiserver's authorizers expect (the node
// in system:nodes, the admin in system:masters, the observer in no
// group), every certificate chains to the CA for its use, the apiserver's
// covers the address the kubeconfigs name, and the kubeconfigs load.
func TestPKI(t *testing.T) {
	dir := t.TempDir()
	if err := writePKI(dir, "10.237.1.1", "node-a", "10.238.0.1"); err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(readCert(t, filepath.Join(dir, "ca.crt")))
	for _, c := range []struct {
		file, cn string
		groups   []string
		usage    x509.ExtKeyUsage
	}{
		{"kubelet", "system:node:node-a", []string{"system:nodes"}, x509.ExtKeyUsageClientAuth},
		{"admin", "podlint-admin", []string{"system:masters"}, x509.ExtKeyUsageClientAuth},
		{"observer", observerUser, nil, x509.ExtKeyUsageClientAuth},
		{"controller-manager", "system:kube-controller-manager", nil, x509.ExtKeyUsageClientAuth},
		{"scheduler", "system:kube-scheduler", nil, x509.ExtKeyUsageClientAuth},
		{"apiserver", "kube-apiserver", nil, x509.ExtKeyUsageServerAuth},
		{"kubelet-serving", "node-a", nil, x509.ExtKeyUsageServerAuth},
	} {
		crt := readCert(t, filepath.Join(dir, c.file+".crt"))
		if crt.Subject.CommonName != c.cn || !slices.Equal(crt.Subject.Organization, c.groups) {
			t.Errorf("%s: CN %q O %q, want %q %q", c.file, crt.Subject.CommonName, crt.Subject.Organization, c.cn, c.groups)
		}
		if _, err := crt.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{c.usage}}); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
	}
	api := readCert(t, filepath.Join(dir, "apiserver.crt"))
	if err := api.VerifyHostname("10.237.1.1"); err != nil {
		t.Error(err)
	}
	if !slices.ContainsFunc(api.IPAddresses, func(ip net.IP) bool { return ip.Equal(net.ParseIP("10.238.0.1")) }) {
		t.Errorf("the apiserver's certificate lacks the kubernetes Service's IP: %v", api.IPAddresses)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "observer.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://10.237.1.1:6443" || len(cfg.TLSClientConfig.CertData) == 0 || len(cfg.TLSClientConfig.CAData) == 0 {
		t.Errorf("observer kubeconfig: host %s, %d bytes of certificate, %d of CA", cfg.Host, len(cfg.TLSClientConfig.CertData), len(cfg.TLSClientConfig.CAData))
	}
	for _, f := range []string{"sa.key", "ca.key", "admin.key", "observer.kubeconfig"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v, want 0600", f, err, st.Mode().Perm())
		}
	}
}
