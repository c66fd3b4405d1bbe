// Small infrastructure both apps use today. No business rules here (STYLE.md section 1).
export { ConfigError } from './config/config-error';
export { envReader } from './config/env-reader';
export { parseListenAddress } from './config/listen-address';
