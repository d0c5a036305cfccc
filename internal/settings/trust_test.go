package settings

import (
	"reflect"
	"strings"
	"testing"
)

// TestConfigTrust: every key of .podlint.yaml is classified in
// configTrust, so a new key cannot raise what a run costs by accident.
func TestConfigTrust(t *testing.T) {
	typ := reflect.TypeFor[Config]()
	keys := map[string]bool{}
	for i := range typ.NumField() {
		key, _, _ := strings.Cut(typ.Field(i).Tag.Get("yaml"), ",")
		if key == "" || key == "-" {
			continue
		}
		keys[key] = true
		if _, ok := configTrust[key]; !ok {
			t.Errorf("config key %q is not in configTrust: say whether a configuration from the pull request may raise it", key)
		}
	}
	for key := range configTrust {
		if !keys[key] {
			t.Errorf("configTrust lists %q, which is no key of Config", key)
		}
	}
}
