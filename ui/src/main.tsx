import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { LearnerApp } from './learner/LearnerApp';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('missing #root');
// The learner page (/launch?token=…) and the front page are one bundle, picked by path.
createRoot(root).render(
  <StrictMode>
    {window.location.pathname.replace(/\/+$/, '') === '/launch' ? <LearnerApp /> : <App />}
  </StrictMode>,
);
