{{/* A Pod template; the Deployment includes it under spec.template. */}}
{{- define "gateway.labels" -}}
app: gateway
{{- end }}

{{- define "gateway.podTemplate" -}}
metadata:
  labels:
    {{- include "gateway.labels" . | nindent 4 }}
spec:
  containers:
    - name: gateway # want PL601:5 "BestEffort"
      image: {{ .Values.image }}
      ports:
        - {name: http, containerPort: 8080}
      livenessProbe:
        httpGet: {path: /healthz, port: http}
        timeoutSeconds: 30 # want PL106:25 "liveness probe of \"gateway\" has a timeout of 30s"
      readinessProbe:
        httpGet: {path: /ready, port: http}
{{- end }}
