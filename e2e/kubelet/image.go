package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// App and sandbox images: one layer (busybox-static and a link per applet),
// two configs. The sandbox only has to sleep until it is killed.
const (
	appImage   = "podlint.local/busybox:e2e"
	pauseImage = "podlint.local/pause:e2e"
)

// packImage writes an OCI image-layout tarball holding both images, which
// `ctr images import` reads without a registry.
func packImage(busybox, out string) error {
	bb, err := os.ReadFile(busybox)
	if err != nil {
		return err
	}
	list, err := exec.Command(busybox, "--list").Output()
	if err != nil {
		return fmt.Errorf("%s --list: %v", busybox, err)
	}
	applets := strings.Fields(string(list))
	sort.Strings(applets)

	var layer bytes.Buffer
	tw := tar.NewWriter(&layer)
	for _, d := range []string{"bin/", "dev/", "etc/", "proc/", "sys/", "tmp/", "obs/", "www/", "var/", "run/"} {
		mode := int64(0o755)
		if d == "tmp/" {
			mode = 0o1777
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: mode}); err != nil {
			return err
		}
	}
	files := []struct {
		name string
		data []byte
		mode int64
	}{
		{"bin/busybox", bb, 0o755},
		{"etc/passwd", []byte("root:x:0:0:root:/:/bin/sh\n"), 0o644},
		{"etc/group", []byte("root:x:0:\n"), 0o644},
	}
	for _, f := range files {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	for _, a := range applets {
		if a == "busybox" || strings.Contains(a, "/") {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777}); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	diffID := digest(layer.Bytes())
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(layer.Bytes()); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}

	blobs := map[string][]byte{}
	add := func(b []byte) string {
		d := digest(b)
		blobs[d] = b
		return d
	}
	layerDigest := add(gz.Bytes())
	type desc struct {
		MediaType   string            `json:"mediaType"`
		Digest      string            `json:"digest"`
		Size        int               `json:"size"`
		Annotations map[string]string `json:"annotations,omitempty"`
		Platform    map[string]string `json:"platform,omitempty"`
	}
	var manifests []desc
	for _, img := range []struct {
		name   string
		config map[string]any
	}{
		{appImage, map[string]any{"Env": []string{"PATH=/bin"}, "Cmd": []string{"sh"}, "WorkingDir": "/"}},
		{pauseImage, map[string]any{"Env": []string{"PATH=/bin"}, "Entrypoint": []string{"/bin/sleep", "2147483647"}, "WorkingDir": "/"}},
	} {
		cfg, _ := json.Marshal(map[string]any{
			"architecture": "amd64", "os": "linux", "config": img.config,
			"rootfs": map[string]any{"type": "layers", "diff_ids": []string{diffID}},
		})
		cfgDigest := add(cfg)
		man, _ := json.Marshal(map[string]any{
			"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
			"config": desc{MediaType: "application/vnd.oci.image.config.v1+json", Digest: cfgDigest, Size: len(cfg)},
			"layers": []desc{{MediaType: "application/vnd.oci.image.layer.v1.tar+gzip", Digest: layerDigest, Size: gz.Len()}},
		})
		manDigest := add(man)
		manifests = append(manifests, desc{MediaType: "application/vnd.oci.image.manifest.v1+json", Digest: manDigest, Size: len(man),
			Platform:    map[string]string{"architecture": "amd64", "os": "linux"},
			Annotations: map[string]string{"io.containerd.image.name": img.name, "org.opencontainers.image.ref.name": img.name[strings.LastIndex(img.name, ":")+1:]}})
	}
	index, _ := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": manifests})

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	ow := tar.NewWriter(f)
	put := func(name string, b []byte) error {
		if err := ow.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(b))}); err != nil {
			return err
		}
		_, err := ow.Write(b)
		return err
	}
	if err := put("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	if err := put("index.json", index); err != nil {
		return err
	}
	names := make([]string, 0, len(blobs))
	for d := range blobs {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		if err := put("blobs/sha256/"+strings.TrimPrefix(d, "sha256:"), blobs[d]); err != nil {
			return err
		}
	}
	if err := ow.Close(); err != nil {
		return err
	}
	return f.Close()
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}
