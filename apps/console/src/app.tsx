import { useEffect, useRef, useState } from 'preact/hooks';
import { onSignInNeeded, setToken } from './api/client';
import { ConnectionsPage } from './pages/connections-page';
import { JobsPage } from './pages/jobs-page';
import { NewExtractionPage } from './pages/new-extraction-page';
import { SchemaPage } from './pages/schema-page';
import { href, useRoute } from './route';

const PAGES = [
  { id: 'jobs', label: 'Jobs' },
  { id: 'connections', label: 'Connections' },
  { id: 'schema', label: 'Schema' },
  { id: 'new-extraction', label: 'New extraction' },
] as const;

export function App() {
  const route = useRoute();
  const [signIn, setSignIn] = useState<string | undefined>();
  // Bumped after a sign-in so the current page loads again with the token.
  const [generation, setGeneration] = useState(0);
  useEffect(() => onSignInNeeded((reason) => setSignIn(reason)), []);
  const known = PAGES.find((p) => p.id === route.page);
  const title = known?.label ?? 'Not found';
  useEffect(() => {
    document.title = `${title} · Fetcher console`;
  }, [title]);

  return (
    <>
      {/* Moves focus without touching the fragment, which holds the page. */}
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="bar">
        <span class="brand">Fetcher</span>
        <nav aria-label="Pages">
          <ul>
            {PAGES.map((p) => (
              <li key={p.id}>
                <a href={href(p.id)} aria-current={p.id === route.page ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1}>
        {signIn !== undefined ? (
          <SignIn
            reason={signIn}
            onDone={(value) => {
              setToken(value);
              setSignIn(undefined);
              setGeneration((g) => g + 1);
              // The prompt and its focused button are gone: continue from the page's start.
              document.getElementById('main')?.focus();
            }}
          />
        ) : (
          // Keyed by the whole location: following a link (even to the same page) starts it afresh.
          <div key={`${route.page}?${route.params.toString()}#${generation}`}>
            {route.page === 'jobs' && <JobsPage params={route.params} />}
            {route.page === 'connections' && <ConnectionsPage />}
            {route.page === 'schema' && <SchemaPage params={route.params} />}
            {route.page === 'new-extraction' && <NewExtractionPage params={route.params} />}
            {!known && (
              <section>
                <h1>Page not found</h1>
                <p>
                  <a href={href('jobs')}>Go to the jobs</a>
                </p>
              </section>
            )}
          </div>
        )}
      </main>
    </>
  );
}

/** Asked for when the API answers 401 or 403; the token stays in this tab's memory only. */
function SignIn({ reason, onDone }: { reason: string; onDone: (token: string) => void }) {
  const [value, setValue] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <section aria-labelledby="signin-title" class="card narrow">
      <h1 id="signin-title">Sign in</h1>
      <p role="alert">
        The API refused the request ({reason}). Paste a bearer token to continue; it is kept in this tab's memory only and forgotten on reload.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onDone(value);
        }}
      >
        <label for="token">Bearer token</label>
        <input id="token" ref={input} type="password" autoComplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} required />
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}
