{{- define "grafana.pod" -}}
{{- $root := . -}}
serviceAccountName: default
{{- if ( or (and .Values.persistence.enabled .Values.initChownData.enabled)
        .Values.dashboards
        .Values.extraInitContainers
        (and .Values.sidecar.alerts.enabled .Values.sidecar.alerts.initAlerts)
        (and .Values.sidecar.datasources.enabled .Values.sidecar.datasources.initDatasources)
        (and .Values.sidecar.notifiers.enabled .Values.sidecar.notifiers.initNotifiers)
        (and .Values.sidecar.dashboards.enabled .Values.sidecar.dashboards.initDashboards)) }}
initContainers:
{{- end }}
{{- if ( and .Values.persistence.enabled .Values.initChownData.enabled ) }}
  - name: init-chown-data
    image: busybox
{{- end }}
containers:
{{- if .Values.sidecar.alerts.enabled }}
  - name: {{ .Chart.Name }}-sc-alerts
    image: kiwigrid/k8s-sidecar
{{- end }}
  - name: grafana # want PL601:3 "BestEffort"
    {{- $registry := .Values.image.registry -}}
    {{- if .Values.image.sha }}
    image: "{{ $registry }}/{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}@sha256:{{ .Values.image.sha }}"
    {{- else }}
    image: "{{ $registry }}/{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
    {{- end }}
    imagePullPolicy: {{ .Values.image.pullPolicy }}
    ports:
      - name: {{ .Values.podPortName }}
        containerPort: {{ .Values.service.targetPort }}
        protocol: TCP
    {{- with .Values.livenessProbe }}
    livenessProbe: # want PL103:5 "waits 60s after every start" # want PL106:5 "timeout of 30s"
      {{- toYaml . | nindent 6 }}
    {{- end }}
    {{- with .Values.readinessProbe }}
    readinessProbe:
      {{- toYaml . | nindent 6 }}
    {{- end }}
{{- end }}
