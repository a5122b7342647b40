// Builds the dashboard to dist/, which the collector serves at /. `pnpm dev` proxies the API to a collector on :3100.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const collector = process.env.COLLECTOR_URL ?? 'http://localhost:3100';

export default defineConfig({
  plugins: [react()],
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The browsers people run dashboards in; no legacy polyfills.
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: { '/api': collector, '/trpc': collector },
  },
});
