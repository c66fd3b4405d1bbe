import { useEffect, useState } from 'preact/hooks';

/**
 * What the serving Manager offers, from `/console/settings.json` (public, same origin, no token):
 * `resultDownload` is whether `GET /v1/fetcher/{id}/result` exists (RESULT_DOWNLOAD_ENABLED).
 * Read once per page load; if it cannot be read, the console assumes the route is off.
 */
export interface ConsoleSettings {
  readonly resultDownload: boolean;
}

const OFF: ConsoleSettings = { resultDownload: false };
let loading: Promise<ConsoleSettings> | undefined;

export function loadSettings(): Promise<ConsoleSettings> {
  loading ??= fetch('/console/settings.json', { headers: { Accept: 'application/json' } })
    .then((response): Promise<Partial<ConsoleSettings>> | Partial<ConsoleSettings> => (response.ok ? (response.json() as Promise<Partial<ConsoleSettings>>) : {}))
    .then((body) => ({ resultDownload: body.resultDownload === true }))
    .catch(() => OFF);
  return loading;
}

/** The settings, or undefined while they load. */
export function useSettings(): ConsoleSettings | undefined {
  const [settings, setSettings] = useState<ConsoleSettings | undefined>();
  useEffect(() => {
    let live = true;
    void loadSettings().then((value) => live && setSettings(value));
    return () => {
      live = false;
    };
  }, []);
  return settings;
}
