import { useEffect, useState } from 'preact/hooks';
import { api, describeError } from './client';
import type { Connection, ConnectionPage } from './types';

/** Every connection (the pickers list them all; the API pages by 100 at most). */
export function useAllConnections(): { connections: readonly Connection[] | undefined; error: string | undefined } {
  const [connections, setConnections] = useState<readonly Connection[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    const read = async () => {
      const all: Connection[] = [];
      for (let page = 1; page <= 50; page += 1) {
        const answer = await api<ConnectionPage>(`/v1/management/connections?page=${page}&limit=100`);
        all.push(...answer.items.filter((c) => !all.some((known) => known.id === c.id)));
        if (answer.items.length === 0 || all.length >= answer.total) break;
      }
      return all;
    };
    read().then(
      (all) => live && setConnections(all),
      (e: unknown) => live && setError(describeError(e)),
    );
    return () => {
      live = false;
    };
  }, []);
  return { connections, error };
}
