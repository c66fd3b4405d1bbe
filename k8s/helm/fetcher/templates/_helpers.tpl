{{/* Chart name, truncated to the 63 characters a label allows. */}}
{{- define "fetcher.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Resource name prefix: the release name, plus the chart name unless the release already holds it. */}}
{{- define "fetcher.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of one app's objects: <fullname>-manager or <fullname>-worker. Call with (list $ "manager"). */}}
{{- define "fetcher.componentName" -}}
{{- $root := index . 0 -}}
{{- printf "%s-%s" (include "fetcher.fullname" $root | trunc 55 | trimSuffix "-") (index . 1) -}}
{{- end -}}

{{- define "fetcher.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "fetcher.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "fetcher.labels" -}}
{{- $root := index . 0 -}}
helm.sh/chart: {{ printf "%s-%s" $root.Chart.Name $root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "fetcher.selectorLabels" . }}
app.kubernetes.io/version: {{ $root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
app.kubernetes.io/part-of: fetcher
{{- with $root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "fetcher.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "fetcher.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret both apps load their secret variables from. The chart never creates it. */}}
{{- define "fetcher.secretName" -}}
{{- default (printf "%s-secrets" (include "fetcher.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "fetcher.image" -}}
{{- $root := index . 0 -}}
{{- $image := index . 1 -}}
{{- printf "%s:%s" $image.repository (default $root.Chart.AppVersion $image.tag) -}}
{{- end -}}

{{/*
Refuses a non-secret variable whose name says it holds a secret: such values belong in the Secret,
never in a ConfigMap. Call with (dict "where" "config.extraEnv" "env" .Values.config.extraEnv).
*/}}
{{- define "fetcher.assertNoSecretNames" -}}
{{- range $name, $_ := .env -}}
{{- if regexMatch "(^APP_ENC_KEY$|^APP_ENC_KEY_PREVIOUS$|PASSWORD|PASSWD|SECRET|_PASS$|API_KEY|TOKEN|ACCESS_KEY|_SSL_KEY$|PRIVATE_KEY|^KEDA_RABBITMQ_HOST$)" $name -}}
{{- fail (printf "%s.%s looks like a secret: put it in the Secret named by secrets.existingSecret instead" $.where $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Variables both apps share (ConfigMap data, values quoted as strings). */}}
{{- define "fetcher.commonEnv" -}}
{{- include "fetcher.assertNoSecretNames" (dict "where" "config.extraEnv" "env" .Values.config.extraEnv) -}}
ENV_NAME: {{ .Values.config.envName | quote }}
LOG_LEVEL: {{ .Values.config.logLevel | quote }}
DEPLOYMENT_MODE: {{ .Values.config.deploymentMode | quote }}
VERSION: {{ default .Chart.AppVersion .Values.config.version | quote }}
APP_ENC_KEY_VERSION: {{ .Values.config.encKeyVersion | quote }}
READYZ_DRAIN_DELAY_SEC: {{ .Values.config.readyzDrainDelaySec | quote }}
ALLOW_INSECURE_TLS: {{ .Values.config.allowInsecureTls | quote }}
MONGO_URI: {{ .Values.config.mongo.scheme | quote }}
MONGO_HOST: {{ .Values.config.mongo.host | quote }}
MONGO_PORT: {{ .Values.config.mongo.port | quote }}
MONGO_NAME: {{ .Values.config.mongo.database | quote }}
MONGO_PARAMETERS: {{ .Values.config.mongo.parameters | quote }}
RABBITMQ_URI: {{ .Values.config.rabbitmq.scheme | quote }}
RABBITMQ_HOST: {{ .Values.config.rabbitmq.host | quote }}
RABBITMQ_PORT_AMQP: {{ .Values.config.rabbitmq.port | quote }}
RABBITMQ_FETCHER_WORK_QUEUE: {{ .Values.config.rabbitmq.workQueue | quote }}
HOST_SAFETY_ALLOWLIST: {{ .Values.config.hostSafety.allowlist | quote }}
HOST_SAFETY_ALLOW_PRIVATE: {{ .Values.config.hostSafety.allowPrivate | quote }}
{{- range $name, $value := .Values.config.extraEnv }}
{{ $name }}: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{/* Seconds a pod may take to stop: preStop sleep + drain delay + the longest piece of work. */}}
{{- define "fetcher.managerGracePeriod" -}}
{{- add .Values.preStopSleepSeconds .Values.config.readyzDrainDelaySec .Values.manager.requestTimeoutSeconds 5 -}}
{{- end -}}
{{- define "fetcher.workerGracePeriod" -}}
{{- add .Values.preStopSleepSeconds .Values.config.readyzDrainDelaySec .Values.worker.maxJobDurationSeconds 15 -}}
{{- end -}}

{{/* Pod-level pieces both Deployments share. */}}
{{- define "fetcher.podCommon" -}}
serviceAccountName: {{ include "fetcher.serviceAccountName" . }}
automountServiceAccountToken: false
enableServiceLinks: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end -}}
