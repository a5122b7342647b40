// The dashboard's entry point.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Dashboard } from './dashboard';
import './styles.css';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <Dashboard />
    </StrictMode>,
  );
}
