{{/* Chart name, shortened to a DNS label. */}}
{{- define "resched.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Full name of the release's resources. */}}
{{- define "resched.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* chart label value: name-version. */}}
{{- define "resched.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of every resource. */}}
{{- define "resched.labels" -}}
helm.sh/chart: {{ include "resched.chart" . }}
{{ include "resched.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the server pod. */}}
{{- define "resched.selectorLabels" -}}
app.kubernetes.io/name: {{ include "resched.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The label a pod needs to reach the gRPC port when networkPolicy.allowExternal is false. */}}
{{- define "resched.clientLabel" -}}
{{ include "resched.fullname" . }}-client
{{- end }}

{{/* ServiceAccount name. */}}
{{- define "resched.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "resched.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Image reference. */}}
{{- define "resched.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* Names of the Secrets, the chart's own or existing ones. */}}
{{- define "resched.tlsSecretName" -}}
{{- default (printf "%s-tls" (include "resched.fullname" .)) .Values.tls.existingSecret }}
{{- end }}
{{- define "resched.tokensSecretName" -}}
{{- default (printf "%s-tokens" (include "resched.fullname" .)) .Values.auth.existingSecret }}
{{- end }}

{{/* Where the Secrets and the config are mounted in the containers. */}}
{{- define "resched.tlsDir" -}}/etc/resched/tls{{- end }}
{{- define "resched.tokensDir" -}}/etc/resched/auth{{- end }}
{{- define "resched.configDir" -}}/etc/resched/config{{- end }}

{{/* The Secret holding the admin bearer token the chart generates (key `token`). */}}
{{- define "resched.adminTokenSecretName" -}}
{{- printf "%s-admin-token" (include "resched.fullname" .) }}
{{- end }}

{{/* "true" when the chart generates the admin token: auth on, no existingSecret, no auth.tokens. */}}
{{- define "resched.generatesAdminToken" -}}
{{- if and .Values.auth.enabled (not .Values.auth.existingSecret) (not .Values.auth.tokens) }}true{{ end }}
{{- end }}

{{/* "true" when the chart generates the server certificate (tls on, no existingSecret, no tls.cert). */}}
{{- define "resched.generatesTls" -}}
{{- if and .Values.tls.enabled (not .Values.tls.existingSecret) (not .Values.tls.cert) }}true{{ end }}
{{- end }}

{{/* "true" when the chart generates the client CA and the probe's client certificate. */}}
{{- define "resched.generatesClientTls" -}}
{{- if and .Values.tls.enabled .Values.tls.clientAuth.enabled (not .Values.tls.existingSecret) (not .Values.tls.clientAuth.ca) }}true{{ end }}
{{- end }}

{{/*
Stops rendering unless the server can start: resched-server refuses a non-loopback address
without both TLS and a tokens file unless --insecure is given (docs/security.md).
*/}}
{{- define "resched.validate" -}}
{{- $secure := and .Values.tls.enabled .Values.auth.enabled }}
{{- if and (not $secure) (not .Values.server.insecure) }}
{{- fail "resched: the server would listen on a pod address without both TLS and bearer tokens, which it refuses. Keep tls.enabled=true and auth.enabled=true (the defaults: the chart generates a self-signed certificate and an admin token, or takes yours from existingSecret or values), or set server.insecure=true to serve without them on purpose." }}
{{- end }}
{{- if and .Values.tls.enabled (not .Values.tls.existingSecret) }}
{{- $given := list .Values.tls.cert .Values.tls.key .Values.tls.ca | compact | len }}
{{- if and (gt $given 0) (lt $given 3) }}
{{- fail "resched: tls.cert, tls.key and tls.ca (PEM) go together: give all three, or none to let the chart generate a self-signed CA and server certificate." }}
{{- end }}
{{- if .Values.tls.clientAuth.enabled }}
{{- $given = list .Values.tls.clientAuth.ca .Values.tls.clientAuth.probeCert .Values.tls.clientAuth.probeKey | compact | len }}
{{- if and (gt $given 0) (lt $given 3) }}
{{- fail "resched: tls.clientAuth.ca, probeCert and probeKey (PEM) go together: give all three, or none to let the chart generate a client CA and the probe's client certificate." }}
{{- end }}
{{- end }}
{{- end }}
{{- if and (or (include "resched.generatesTls" .) (include "resched.generatesClientTls" .) (include "resched.generatesAdminToken" .)) (not .Values.generateCredentials) }}
{{- fail "resched: no TLS material or tokens are given, and generateCredentials is false. Bring your own: tls.existingSecret and auth.existingSecret (the GitOps path: helm template, which Argo CD runs, cannot keep generated material and would make new ones on every render), or tls.cert/tls.key/tls.ca and auth.tokens. Or set generateCredentials=true to let helm install and helm upgrade generate them and keep them." }}
{{- end }}
{{- if and .Values.metrics.enabled (not .Values.networkPolicy.enabled) (not .Values.server.insecure) }}
{{- fail "resched: metrics.enabled serves plain-HTTP metrics without authentication on the pod's address, and networkPolicy.enabled is false, so any pod could read them. Keep networkPolicy.enabled=true (the default; networkPolicy.metricsFrom says who may scrape), set metrics.enabled=false, or set server.insecure=true on purpose." }}
{{- end }}
{{- if not (has .Values.store.type (list "local" "etcd")) }}
{{- fail (printf "resched: store.type must be local or etcd, got %q." .Values.store.type) }}
{{- end }}
{{- if and (eq .Values.store.type "local") (not (kindIs "invalid" .Values.replicas)) (ne (int .Values.replicas) 1) }}
{{- fail "resched: with store.type=local the journal is on one pod's volume, so replicas must be 1 (or null). For several replicas that take over from each other set store.type=etcd (docs/ha.md)." }}
{{- end }}
{{- if and .Values.tls.clientAuth.enabled (not .Values.tls.enabled) }}
{{- fail "resched: tls.clientAuth.enabled needs tls.enabled=true." }}
{{- end }}
{{- if .Values.webView.enabled }}
{{- $web := int .Values.webView.port }}
{{- if or (eq $web (int .Values.server.port)) (and .Values.metrics.enabled (eq $web (int .Values.metrics.port))) }}
{{- fail (printf "resched: webView.port %d is also the gRPC or the metrics port: give the web view a port of its own." $web) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The resched CLI's flags to reach the server with this chart's TLS material (probes, helm test).
*/}}
{{- define "resched.cliTlsArgs" -}}
{{- if .Values.tls.enabled }}
- --tls-ca
- {{ include "resched.tlsDir" . }}/ca.crt
{{- if .Values.tls.clientAuth.enabled }}
- --tls-cert
- {{ include "resched.tlsDir" . }}/client.crt
- --tls-key
- {{ include "resched.tlsDir" . }}/client.key
{{- end }}
{{- end }}
{{- end }}

{{/* A health probe: native gRPC without TLS, else `resched health` run in the container. */}}
{{- define "resched.probe" -}}
{{- $root := index . 0 }}
{{- $p := index . 1 }}
{{- if $root.Values.tls.enabled }}
exec:
  command:
    - resched
    - --server
    - localhost:{{ $root.Values.server.port }}
    - --timeout
    - {{ printf "%ds" (sub (int $p.timeoutSeconds) 1 | max 1) }}
    {{- with include "resched.cliTlsArgs" $root | trim }}
    {{- . | nindent 4 }}
    {{- end }}
    - health
{{- else }}
grpc:
  port: {{ $root.Values.server.port }}
{{- end }}
periodSeconds: {{ $p.periodSeconds }}
timeoutSeconds: {{ $p.timeoutSeconds }}
failureThreshold: {{ $p.failureThreshold }}
{{- end }}

{{/*
The replicas of resched-server: 1 with the local store, replicas (default 3) with etcd.
*/}}
{{- define "resched.replicas" -}}
{{- if eq .Values.store.type "etcd" -}}
{{- if kindIs "invalid" .Values.replicas }}3{{ else }}{{ int .Values.replicas }}{{ end -}}
{{- else -}}
1
{{- end -}}
{{- end }}

{{/*
The chart's own etcd (store.type=etcd without store.etcd.endpoints): its name, and whether it runs.
*/}}
{{- define "resched.etcdName" -}}
{{- printf "%s-etcd" (include "resched.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "resched.runsEtcd" -}}
{{- if and (eq .Values.store.type "etcd") (not .Values.store.etcd.endpoints) }}true{{ end }}
{{- end }}

{{/*
etcd's client URLs: the given ones, or the chart's members through their headless Service.
*/}}
{{- define "resched.etcdEndpoints" -}}
{{- if .Values.store.etcd.endpoints -}}
{{- join "," .Values.store.etcd.endpoints -}}
{{- else -}}
{{- $name := include "resched.etcdName" . -}}
{{- $urls := list -}}
{{- range $i := until (int .Values.etcdCluster.replicas) -}}
{{- $urls = append $urls (printf "http://%s-%d.%s-headless.%s.svc:2379" $name $i $name $.Release.Namespace) -}}
{{- end -}}
{{- join "," $urls -}}
{{- end -}}
{{- end }}

{{/* The chart's etcd members: labels of their own, so that no resched selector picks them. */}}
{{- define "resched.etcdSelectorLabels" -}}
app.kubernetes.io/name: {{ printf "%s-etcd" (include "resched.name" .) | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- define "resched.etcdLabels" -}}
helm.sh/chart: {{ include "resched.chart" . }}
{{ include "resched.etcdSelectorLabels" . }}
app.kubernetes.io/component: etcd
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
