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
{{- include "fetcher.multiTenantChecks" . -}}
ENV_NAME: {{ .Values.config.envName | quote }}
LOG_LEVEL: {{ .Values.config.logLevel | quote }}
DEPLOYMENT_MODE: {{ .Values.config.deploymentMode | quote }}
VERSION: {{ default .Chart.AppVersion .Values.config.version | quote }}
APP_ENC_KEY_VERSION: {{ .Values.config.encKeyVersion | quote }}
READYZ_DRAIN_DELAY_SEC: {{ .Values.config.readyzDrainDelaySec | quote }}
ALLOW_INSECURE_TLS: {{ .Values.config.allowInsecureTls | quote }}
{{- /* MONGO_NAME stays required by the settings check; the scheme and parameters stay for the SaaS TLS rule. */}}
MONGO_URI: {{ .Values.config.mongo.scheme | quote }}
MONGO_NAME: {{ .Values.config.mongo.database | quote }}
MONGO_PARAMETERS: {{ .Values.config.mongo.parameters | quote }}
RABBITMQ_URI: {{ .Values.config.rabbitmq.scheme | quote }}
RABBITMQ_FETCHER_WORK_QUEUE: {{ .Values.config.rabbitmq.workQueue | quote }}
HOST_SAFETY_ALLOWLIST: {{ .Values.config.hostSafety.allowlist | quote }}
{{- if .Values.multiTenant.enabled }}
{{- /* Private ranges are always denied in multi-tenant mode; the services ignore a true here. */}}
HOST_SAFETY_ALLOW_PRIVATE: "false"
{{ include "fetcher.multiTenantEnv" . }}
{{- else }}
{{- $_ := required "config.mongo.host (MONGO_HOST) is required unless multiTenant.enabled is true" .Values.config.mongo.host }}
{{- $_ := required "config.rabbitmq.host (RABBITMQ_HOST) is required unless multiTenant.enabled is true" .Values.config.rabbitmq.host }}
MONGO_HOST: {{ .Values.config.mongo.host | quote }}
MONGO_PORT: {{ .Values.config.mongo.port | quote }}
RABBITMQ_HOST: {{ .Values.config.rabbitmq.host | quote }}
RABBITMQ_PORT_AMQP: {{ .Values.config.rabbitmq.port | quote }}
HOST_SAFETY_ALLOW_PRIVATE: {{ .Values.config.hostSafety.allowPrivate | quote }}
{{- end }}
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

{{/*
Refuses a MULTI_TENANT_* variable given through extraEnv: multiTenant.* renders them, and a second
copy would be a duplicate key. Call with (dict "where" "config.extraEnv" "env" .Values.config.extraEnv).
*/}}
{{- define "fetcher.assertNoTenancyNames" -}}
{{- range $name, $_ := .env -}}
{{- if hasPrefix "MULTI_TENANT_" $name -}}
{{- fail (printf "%s.%s: set multi-tenant mode with the multiTenant.* values instead%s" $.where $name (ternary " (a custom CA is not supported: Redis TLS uses the system trust store)" "" (eq $name "MULTI_TENANT_REDIS_CA_CERT"))) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The startup refusals of multi-tenant mode, at render time: each message names the value to fix.
Mirrors the services' checks (MULTI_TENANT_URL, MULTI_TENANT_SERVICE_API_KEY, MULTI_TENANT_REDIS_HOST,
ENV_NAME, the token key source and algorithms), so an operator learns at `helm template` time.
*/}}
{{- define "fetcher.multiTenantChecks" -}}
{{- include "fetcher.assertNoTenancyNames" (dict "where" "config.extraEnv" "env" .Values.config.extraEnv) -}}
{{- include "fetcher.assertNoTenancyNames" (dict "where" "manager.extraEnv" "env" .Values.manager.extraEnv) -}}
{{- include "fetcher.assertNoTenancyNames" (dict "where" "worker.extraEnv" "env" .Values.worker.extraEnv) -}}
{{- $mt := .Values.multiTenant -}}
{{- if $mt.enabled -}}
{{- $url := required "multiTenant.url (MULTI_TENANT_URL) is required when multiTenant.enabled is true: the tenant-manager base URL" $mt.url -}}
{{- if not (regexMatch "^(?i)https?://[^/\\s]+" $url) -}}
{{- fail "multiTenant.url (MULTI_TENANT_URL) must be an http(s) URL" -}}
{{- end -}}
{{- if and (regexMatch "^(?i)http://" $url) (not $mt.allowInsecureHttp) -}}
{{- fail "multiTenant.url (MULTI_TENANT_URL) must use https (set multiTenant.allowInsecureHttp=true to allow http)" -}}
{{- end -}}
{{- if not $mt.apiKeySecret.key -}}
{{- fail "multiTenant.apiKeySecret.key is required when multiTenant.enabled is true: the Secret key holding MULTI_TENANT_SERVICE_API_KEY" -}}
{{- end -}}
{{- $_ := required "multiTenant.redis.host (MULTI_TENANT_REDIS_HOST) is required when multiTenant.enabled is true: the Redis that carries tenant events" $mt.redis.host -}}
{{- if not (has (lower (trim (toString .Values.config.envName))) (list "staging" "production")) -}}
{{- fail "config.envName (ENV_NAME) must be staging or production when multiTenant.enabled is true: it names the tenant event channel tenant-events:<ENV_NAME>:" -}}
{{- end -}}
{{- if and .Values.worker.enabled .Values.worker.keda.enabled -}}
{{- fail "worker.keda.enabled must be false when multiTenant.enabled is true: KEDA watches one work queue, and each tenant's is in its own vhost" -}}
{{- end -}}
{{- if .Values.manager.enabled -}}
{{- if and (not $mt.jwt.jwksUrl) (not $mt.jwt.publicKey) -}}
{{- fail "multiTenant.jwt.jwksUrl (MULTI_TENANT_JWKS_URL) or multiTenant.jwt.publicKey (MULTI_TENANT_JWT_PUBLIC_KEY) is required when multiTenant.enabled is true: the Manager verifies tenant tokens with it" -}}
{{- end -}}
{{- if and $mt.jwt.jwksUrl $mt.jwt.publicKey -}}
{{- fail "multiTenant.jwt.publicKey must not be set together with multiTenant.jwt.jwksUrl: choose one key source" -}}
{{- end -}}
{{- if and $mt.jwt.jwksUrl (not (regexMatch "^(?i)https?://[^/\\s]+" $mt.jwt.jwksUrl)) -}}
{{- fail "multiTenant.jwt.jwksUrl (MULTI_TENANT_JWKS_URL) must be an http(s) URL" -}}
{{- end -}}
{{- if and $mt.jwt.publicKey (not (contains "-----BEGIN PUBLIC KEY-----" (b64dec $mt.jwt.publicKey))) -}}
{{- fail "multiTenant.jwt.publicKey (MULTI_TENANT_JWT_PUBLIC_KEY) must be a base64-encoded PEM public key (-----BEGIN PUBLIC KEY-----)" -}}
{{- end -}}
{{- if not $mt.jwt.algorithms -}}
{{- fail "multiTenant.jwt.algorithms must list at least one algorithm" -}}
{{- end -}}
{{- range $mt.jwt.algorithms -}}
{{- if regexMatch "^(?i)(none|HS[0-9]+)$" (toString .) -}}
{{- fail "multiTenant.jwt.algorithms must not contain none or an HMAC algorithm (HS256, HS384, HS512): tenant tokens are verified with a public key" -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if eq (lower (trim (toString .Values.config.deploymentMode))) "saas" -}}
{{- if regexMatch "^(?i)http://" $url -}}
{{- fail "multiTenant.url (MULTI_TENANT_URL) must use TLS when config.deploymentMode=saas" -}}
{{- end -}}
{{- if not $mt.redis.tls -}}
{{- fail "multiTenant.redis.tls (MULTI_TENANT_REDIS_TLS) must be true when config.deploymentMode=saas" -}}
{{- end -}}
{{- /* The services still apply the SaaS TLS rule to MONGO_URI/MONGO_PARAMETERS and RABBITMQ_URI in this mode. */ -}}
{{- if not (or (eq .Values.config.mongo.scheme "mongodb+srv") (regexMatch "(^|&)(tls|ssl)=(?i)(true|1)(&|$)" (toString .Values.config.mongo.parameters))) -}}
{{- fail "config.mongo.scheme=mongodb+srv or config.mongo.parameters tls=true is required when config.deploymentMode=saas, also in multi-tenant mode: the services check MONGO_URI/MONGO_PARAMETERS for TLS" -}}
{{- end -}}
{{- if ne .Values.config.rabbitmq.scheme "amqps" -}}
{{- fail "config.rabbitmq.scheme must be amqps when config.deploymentMode=saas, also in multi-tenant mode: the services check RABBITMQ_URI for TLS" -}}
{{- end -}}
{{- if and .Values.manager.enabled (regexMatch "^(?i)http://" (toString $mt.jwt.jwksUrl)) -}}
{{- fail "multiTenant.jwt.jwksUrl (MULTI_TENANT_JWKS_URL) must use TLS when config.deploymentMode=saas" -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The multi-tenant variables both apps share (ConfigMap data). The API key is never here: see fetcher.multiTenantSecretEnv. */}}
{{- define "fetcher.multiTenantEnv" -}}
{{- $mt := .Values.multiTenant -}}
MULTI_TENANT_ENABLED: "true"
MULTI_TENANT_URL: {{ $mt.url | quote }}
MULTI_TENANT_ALLOW_INSECURE_HTTP: {{ $mt.allowInsecureHttp | quote }}
MULTI_TENANT_REDIS_HOST: {{ $mt.redis.host | quote }}
MULTI_TENANT_REDIS_PORT: {{ $mt.redis.port | quote }}
MULTI_TENANT_REDIS_TLS: {{ $mt.redis.tls | quote }}
MULTI_TENANT_MAX_TENANT_POOLS: {{ $mt.maxTenantPools | quote }}
MULTI_TENANT_IDLE_TIMEOUT_SEC: {{ $mt.idleTimeoutSec | quote }}
MULTI_TENANT_CACHE_TTL_SEC: {{ $mt.cacheTtlSec | quote }}
MULTI_TENANT_TIMEOUT: {{ $mt.timeoutSec | quote }}
MULTI_TENANT_CIRCUIT_BREAKER_THRESHOLD: {{ $mt.circuitBreaker.threshold | quote }}
MULTI_TENANT_CIRCUIT_BREAKER_TIMEOUT_SEC: {{ $mt.circuitBreaker.timeoutSec | quote }}
{{- end -}}

{{/* The Manager's token-verification variables (the tenant guard). */}}
{{- define "fetcher.multiTenantManagerEnv" -}}
{{- $jwt := .Values.multiTenant.jwt -}}
{{- with $jwt.jwksUrl }}
MULTI_TENANT_JWKS_URL: {{ . | quote }}
{{- end }}
{{- with $jwt.publicKey }}
MULTI_TENANT_JWT_PUBLIC_KEY: {{ . | quote }}
{{- end }}
MULTI_TENANT_JWT_ALGORITHMS: {{ join "," $jwt.algorithms | quote }}
{{- with $jwt.issuer }}
MULTI_TENANT_JWT_ISSUER: {{ . | quote }}
{{- end }}
{{- with $jwt.audience }}
MULTI_TENANT_JWT_AUDIENCE: {{ join "," . | quote }}
{{- end }}
{{- end -}}

{{/*
The tenant-manager API key, from a Secret key by reference (container env): a Secret without that key
keeps the pod from starting, with the key's name in the event, instead of a service refusal later.
*/}}
{{- define "fetcher.multiTenantSecretEnv" -}}
{{- if .Values.multiTenant.enabled }}
env:
  - name: MULTI_TENANT_SERVICE_API_KEY
    valueFrom:
      secretKeyRef:
        name: {{ default (include "fetcher.secretName" .) .Values.multiTenant.apiKeySecret.name }}
        key: {{ .Values.multiTenant.apiKeySecret.key }}
{{- end }}
{{- end -}}
