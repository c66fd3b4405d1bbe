// Builds the console into dist/, which the Manager serves under /console. Preact's JSX goes through
// Vite's own transformer (no Babel plugin); every asset gets a content hash, so the Manager can
// cache them for a year, and nothing is inlined into index.html (the page's CSP forbids inline script).
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    sourcemap: false,
  },
});
