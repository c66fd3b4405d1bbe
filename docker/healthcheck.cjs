// Container health check for the Fetcher images: GET /health on the app's own port, exit 0 on 200.
// Written for node because the slim base image has no curl or wget.
// Usage: node healthcheck.cjs manager|worker [path]   (path defaults to /health; /readyz also works)
'use strict';

const app = process.argv[2];
const path = process.argv[3] || '/health';

function port() {
  if (app === 'worker') {
    const value = Number(process.env.HEALTH_PORT);
    return Number.isInteger(value) && value > 0 && value <= 65535 ? value : 4007;
  }
  // SERVER_ADDRESS is ":4006", "0.0.0.0:4006" or "[::]:4006": the port is what follows the last colon.
  const address = process.env.SERVER_ADDRESS || ':4006';
  const value = Number(address.slice(address.lastIndexOf(':') + 1));
  return Number.isInteger(value) && value > 0 && value <= 65535 ? value : 4006;
}

if (app !== 'manager' && app !== 'worker') {
  process.stderr.write('usage: healthcheck.cjs manager|worker [path]\n');
  process.exit(2);
}

fetch(`http://127.0.0.1:${port()}${path}`, { signal: AbortSignal.timeout(4000) })
  .then((response) => process.exit(response.status === 200 ? 0 : 1))
  .catch(() => process.exit(1));
