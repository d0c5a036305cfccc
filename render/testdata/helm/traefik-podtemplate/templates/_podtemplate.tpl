{{- define "traefik.podTemplate" }}
  {{- $version := .Chart.AppVersion }}
    metadata:
      labels:
        app.kubernetes.io/name: traefik
    spec:
      terminationGracePeriodSeconds: 60
      containers:
      - image: {{ .Values.image.repository }}:{{ .Values.image.tag }} # want PL601:7 "BestEffort"
        imagePullPolicy: {{ .Values.image.pullPolicy }}
        name: {{ .Release.Name }}-traefik
        resources:
          {{- with .Values.resources }}
          {{- toYaml . | nindent 10 }}
          {{- end }}
        {{- $readinessPath := (default "/ping" .Values.deployment.readinessPath) }}
        {{- $livenessPath := (default "/ping" .Values.deployment.livenessPath) }}
        readinessProbe:
          httpGet:
            path: {{ $readinessPath }}
            port: 8080
            scheme: HTTP
          {{- toYaml .Values.readinessProbe | nindent 10 }}
        livenessProbe: # want PL106:9 "timeout of 20s"
          httpGet:
            path: {{ $livenessPath }}
            port: 8080
            scheme: HTTP
          {{- toYaml .Values.livenessProbe | nindent 10 }}
        ports:
        - name: traefik
          containerPort: 8080
          protocol: TCP
{{- end }}
