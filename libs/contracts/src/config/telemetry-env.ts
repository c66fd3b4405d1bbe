import { envBool, envUrl, type TelemetrySettings } from '@fetcher/platform';
import { z } from 'zod';

/** The OpenTelemetry variables both services read; only the default service name differs. */
export function telemetryEnv(defaultServiceName: string) {
  return {
    ENABLE_TELEMETRY: envBool(false),
    OTEL_EXPORTER_OTLP_ENDPOINT: envUrl({ protocols: ['http', 'https'] }).optional(),
    OTEL_RESOURCE_SERVICE_NAME: z.string().default(defaultServiceName),
    OTEL_RESOURCE_SERVICE_VERSION: z.string().optional(),
    OTEL_RESOURCE_DEPLOYMENT_ENVIRONMENT: z.string().optional(),
  };
}

type TelemetryValues = z.output<z.ZodObject<ReturnType<typeof telemetryEnv>>>;

/** The tracing settings; the environment is OTEL_RESOURCE_DEPLOYMENT_ENVIRONMENT, else the service's ENV_NAME. */
export function telemetrySettingsFrom(e: TelemetryValues, envName: string | undefined): TelemetrySettings {
  const environment = e.OTEL_RESOURCE_DEPLOYMENT_ENVIRONMENT ?? envName;
  return {
    enabled: e.ENABLE_TELEMETRY,
    serviceName: e.OTEL_RESOURCE_SERVICE_NAME,
    ...(e.OTEL_RESOURCE_SERVICE_VERSION ? { serviceVersion: e.OTEL_RESOURCE_SERVICE_VERSION } : {}),
    ...(environment ? { environment } : {}),
    ...(e.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT } : {}),
  };
}
