import { useEffect, useState } from 'preact/hooks';

/**
 * Pages live in the URL's fragment (`/console/#/jobs`), so a reload or a shared link opens the same
 * page and the server only ever serves index.html for /console.
 */
export interface Route {
  readonly page: string;
  readonly params: URLSearchParams;
}

export function parseRoute(hash: string): Route {
  const [path = '', query = ''] = hash.replace(/^#\/?/, '').split('?');
  return { page: path || 'jobs', params: new URLSearchParams(query) };
}

export function href(page: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams(params).toString();
  return `#/${page}${query ? `?${query}` : ''}`;
}

export function navigate(page: string, params: Record<string, string> = {}): void {
  window.location.hash = href(page, params);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const update = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
