package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServerTLS serves the API over HTTPS with --tls-cert/--tls-key and
// checks that a client trusting the certificate can call it.
func TestServerTLS(t *testing.T) {
	dir := t.TempDir()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	certPath, keyPath := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	_ = os.WriteFile(certPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	_ = os.WriteFile(keyPath, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
	cfg := filepath.Join(dir, "cluster.yaml")
	_ = os.WriteFile(cfg, []byte("nodeGroups: [{name: p5, instanceType: ml.p5.48xlarge, count: 1}]\nteams: [{name: a}]\n"), 0o644)

	ctx, cancel := context.WithCancel(context.Background())
	addrc, errc := make(chan string, 1), make(chan error, 1)
	go func() {
		errc <- runServer(ctx, serverOptions{config: cfg, dataDir: dir, listen: "127.0.0.1:0", tlsCert: certPath, tlsKey: keyPath,
			logTo: io.Discard}, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-errc:
		t.Fatal(err)
	}
	defer func() { cancel(); <-errc }()
	pool := x509.NewCertPool()
	pool.AddCert(mustParse(t, der))
	cl := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	tok, _ := os.ReadFile(filepath.Join(dir, "admin.token"))
	req, _ := http.NewRequest("GET", "https://"+addr+"/api/v1/policy", nil)
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET over TLS: %d", resp.StatusCode)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		if r, err := http.Get("http://" + addr + "/healthz"); err == nil && r.StatusCode == 200 {
			t.Fatal("the TLS server also answered plain HTTP")
		}
	}
	_, errs, code := cli(t, "server", "--tls-cert", certPath, "--data-dir", dir)
	if code != exitInput || !strings.Contains(errs, "give both") {
		t.Fatalf("only one TLS flag: exit %d: %s", code, errs)
	}
}

func mustParse(t *testing.T, der []byte) *x509.Certificate {
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
