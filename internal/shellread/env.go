package shellread

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Env is what is known of a script's environment: the container's literal
// env values (env[].value; a valueFrom or a $(VAR) reference is not known),
// and whether names outside them may still be set (envFrom).
type Env struct {
	vars    map[string]string
	unknown map[string]bool
	// Open: a name not listed may be set by envFrom.
	Open bool
}

// Set records a literal value; Unknown a name whose value is not known.
// A later call for the same name wins, as in the kubelet's env list.
func (e *Env) Set(name, value string) {
	if e.vars == nil {
		e.vars, e.unknown = map[string]string{}, map[string]bool{}
	}
	e.vars[name] = value
	delete(e.unknown, name)
}

func (e *Env) Unknown(name string) {
	if e.vars == nil {
		e.vars, e.unknown = map[string]string{}, map[string]bool{}
	}
	delete(e.vars, name)
	e.unknown[name] = true
}

// lookup: the value and whether the name is set; known=false when the
// reader cannot tell.
func (e Env) lookup(name string) (value string, set, known bool) {
	if e.unknown[name] {
		return "", false, false
	}
	if v, ok := e.vars[name]; ok {
		return v, true, true
	}
	if e.Open || name == "" || name[0] >= '0' && name[0] <= '9' || strings.ContainsAny(name, "@*#?$!-") {
		return "", false, false // envFrom, positional and special parameters
	}
	return "", false, true
}

// clone copies e so that a script's own assignments do not leak.
func (e Env) clone() Env {
	c := Env{Open: e.Open}
	for k, v := range e.vars {
		c.Set(k, v)
	}
	for k := range e.unknown {
		c.Unknown(k)
	}
	return c
}

// word expands a word made of literal text, quotes and simple parameter
// expansions ($X, ${X}, ${X:-default}, ${X-default}); ok=false for
// anything else (command substitution, arithmetic, globs are left alone:
// a sleep operand has none) or an unknown variable.
func (e Env) word(w *syntax.Word) (string, bool) {
	var b strings.Builder
	if !e.parts(&b, w.Parts, false) {
		return "", false
	}
	return b.String(), true
}

func (e Env) parts(b *strings.Builder, parts []syntax.WordPart, quoted bool) bool {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar || !e.parts(b, p.Parts, true) {
				return false
			}
		case *syntax.ParamExp:
			v, ok := e.param(p)
			if !ok {
				return false
			}
			b.WriteString(v)
		default:
			return false
		}
	}
	return true
}

func (e Env) param(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Flags != nil || p.NestedParam != nil ||
		p.Index != nil || p.Slice != nil || p.Repl != nil || p.Names != 0 || len(p.Modifiers) > 0 {
		return "", false
	}
	v, set, known := e.lookup(p.Param.Value)
	if p.Exp == nil {
		return v, known && set
	}
	switch p.Exp.Op {
	case syntax.DefaultUnsetOrNull, syntax.DefaultUnset:
		if !known {
			return "", false
		}
		if set && (v != "" || p.Exp.Op == syntax.DefaultUnset) {
			return v, true
		}
		if p.Exp.Word == nil {
			return "", true
		}
		return e.word(p.Exp.Word)
	}
	return "", false
}

// unescape removes the backslashes the shell removes: before any
// character outside quotes, before $ ` " \ and newline inside double
// quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			c := s[i+1]
			if !quoted || strings.IndexByte("$`\"\\\n", c) >= 0 {
				i++
				if c != '\n' {
					b.WriteByte(c)
				}
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
