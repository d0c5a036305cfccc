package manifest

import "reflect"

// Decode decodes an object that podlint does not lint itself (a Service, a
// PodDisruptionBudget, …) into v, a pointer to its k8s.io/api struct, the
// way kubectl would. Problems such as unknown fields are not reported: these
// objects are read only to judge the workloads beside them. It reports
// whether the object could be decoded.
func (o *Object) Decode(v any, lim Limits) bool {
	rv := reflect.ValueOf(v)
	if o == nil || o.Doc == nil || o.Node == nil || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false
	}
	var scratch Result
	conv := &converter{maxDepth: lim.MaxDepth}
	return decodeInto(o.Doc, o.Node, rv, conv, lim, o, &scratch)
}
