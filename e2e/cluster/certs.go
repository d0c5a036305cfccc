package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// identity is a client certificate: CN is the user, O the groups, as the
// apiserver's x509 authenticator reads them.
type identity struct {
	file   string
	cn     string
	groups []string
}

// identities are the cluster's users: the admin (system:masters), the
// control plane's components under the names the bootstrap RBAC policy
// binds (system:kube-controller-manager, system:kube-scheduler), the node
// (system:node:NAME in system:nodes, which the Node authorizer and the
// NodeRestriction admission accept without bootstrap tokens), the
// apiserver's client to the kubelet, and the observer of the `observe`
// issue, who gets only the read-only ClusterRole setup binds.
func identities(node string) []identity {
	return []identity{
		{"admin", "podlint-admin", []string{"system:masters"}},
		{"controller-manager", "system:kube-controller-manager", nil},
		{"scheduler", "system:kube-scheduler", nil},
		{"kubelet", "system:node:" + node, []string{"system:nodes"}},
		{"apiserver-kubelet-client", "podlint-apiserver", nil},
		{"observer", observerUser, nil},
	}
}

const observerUser = "podlint-observer"

// writePKI writes into dir a CA, the apiserver's serving certificate for
// ip (and the in-cluster names), a client certificate and kubeconfig per
// identity, and the service-account signing key pair. Everything is made
// fresh at every start and removed with the state folder.
func writePKI(dir, ip, node, serviceIP string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "podlint-e2e-ca"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	if err := writePair(dir, "ca", caDER, caKey); err != nil {
		return err
	}
	issue := func(name string, tmpl *x509.Certificate) error {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return err
		}
		tmpl.SerialNumber = serial()
		tmpl.NotBefore, tmpl.NotAfter = now.Add(-time.Hour), now.Add(7*24*time.Hour)
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			return err
		}
		return writePair(dir, name, der, key)
	}
	if err := issue("apiserver", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP(ip), net.ParseIP("127.0.0.1"), net.ParseIP(serviceIP)},
		DNSNames:    []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "localhost"},
	}); err != nil {
		return err
	}
	// The kubelet's serving certificate: the apiserver checks it against
	// the CA (--kubelet-certificate-authority) when it reads pods/log.
	if err := issue("kubelet-serving", &x509.Certificate{
		Subject:     pkix.Name{CommonName: node},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.ParseIP(ip)},
		DNSNames:    []string{node},
	}); err != nil {
		return err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	for _, id := range identities(node) {
		if err := issue(id.file, &x509.Certificate{
			Subject:     pkix.Name{CommonName: id.cn, Organization: id.groups},
			ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		}); err != nil {
			return err
		}
		if err := writeKubeconfig(dir, id.file, "https://"+net.JoinHostPort(ip, apiPort), caPEM); err != nil {
			return err
		}
	}
	// The service-account tokens' signing key (the apiserver's
	// --service-account-signing-key-file, the controller-manager's
	// --service-account-private-key-file) and its public half, which the
	// apiserver verifies tokens with.
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
}

const apiPort = "6443"

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return n
}

func writePair(dir, name string, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
}

// writeKubeconfig writes NAME.kubeconfig with the certificates inline, so
// that it can be copied out of the state folder and still work.
func writeKubeconfig(dir, name, server string, caPEM []byte) error {
	crt, err := os.ReadFile(filepath.Join(dir, name+".crt"))
	if err != nil {
		return err
	}
	key, err := os.ReadFile(filepath.Join(dir, name+".key"))
	if err != nil {
		return err
	}
	b64 := base64.StdEncoding.EncodeToString
	cfg := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: podlint-e2e
  cluster: {server: %q, certificate-authority-data: %s}
users:
- name: %s
  user: {client-certificate-data: %s, client-key-data: %s}
contexts:
- name: %s
  context: {cluster: podlint-e2e, user: %s}
current-context: %s
`, server, b64(caPEM), name, b64(crt), b64(key), name, name, name)
	return os.WriteFile(filepath.Join(dir, name+".kubeconfig"), []byte(cfg), 0o600)
}
