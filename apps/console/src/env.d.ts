// Vite bundles the stylesheet imported by main.tsx; for the type checker it is a module without exports.
declare module '*.css';
