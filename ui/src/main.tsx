import { StrictMode, type ComponentType } from 'react';
import { createRoot } from 'react-dom/client';

const root = document.getElementById('root');
if (!root) throw new Error('missing #root');

// The learner page (/launch?token=…) and the admin portal share one index.html, picked by path;
// each loads only its own code, so a student's browser never downloads the admin UI.
const isLearnerPage = window.location.pathname.replace(/\/+$/, '') === '/launch';
const load: Promise<ComponentType> = isLearnerPage
  ? import('./learner/LearnerApp').then((module) => module.LearnerApp)
  : import('./portal/PortalApp').then((module) => module.PortalApp);

void load.then((Page) =>
  createRoot(root).render(
    <StrictMode>
      <Page />
    </StrictMode>,
  ),
);
