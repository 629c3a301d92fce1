// @tier unit
import { describe, expect, it } from 'vitest';
import { decideNavigation, decidePermission, installNavigationGuards, portalWebPreferences } from './security.js';
import { FakeWebContents } from './test-support/fake-window.js';

const PORTAL = 'http://127.0.0.1:4780';

describe('decideNavigation', () => {
  it.each([`${PORTAL}/`, `${PORTAL}/developers?tab=keys#new`, `${PORTAL}/v1/docs/`, 'HTTP://127.0.0.1:4780/institutions'])('keeps %s in the window', (url) => {
    expect(decideNavigation(url, PORTAL)).toBe('allow');
  });

  it.each([
    'https://example.org/',
    'http://127.0.0.1:4781/',
    'http://localhost:4780/',
    'https://127.0.0.1:4780/',
    'http://127.0.0.1:4780@evil.example/',
    'http://127.0.0.1.evil.example:4780/',
  ])('sends %s to the system browser', (url) => {
    expect(decideNavigation(url, PORTAL)).toBe('external');
  });

  it.each(['file:///etc/passwd', 'javascript:alert(1)', 'data:text/html,<b>hi</b>', 'mailto:it@school.example', 'campusbridge://open', 'not a url', ''])(
    'refuses %s',
    (url) => {
      expect(decideNavigation(url, PORTAL)).toBe('deny');
    },
  );
});

describe('decidePermission', () => {
  it('lets the portal write to the clipboard and nothing else', () => {
    expect(decidePermission('clipboard-sanitized-write', `${PORTAL}/developers`, PORTAL)).toBe(true);
    expect(decidePermission('clipboard-read', `${PORTAL}/developers`, PORTAL)).toBe(false);
    expect(decidePermission('media', `${PORTAL}/`, PORTAL)).toBe(false);
    expect(decidePermission('clipboard-sanitized-write', 'https://evil.example/', PORTAL)).toBe(false);
  });
});

describe('portalWebPreferences', () => {
  it('isolates the page, gives it no Node.js and sandboxes it', () => {
    expect(portalWebPreferences('/app/preload.cjs', ['--x=1'])).toMatchObject({
      preload: '/app/preload.cjs',
      additionalArguments: ['--x=1'],
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      sandbox: true,
      webSecurity: true,
      webviewTag: false,
    });
  });
});

describe('installNavigationGuards', () => {
  function guarded() {
    const contents = new FakeWebContents();
    const opened: string[] = [];
    installNavigationGuards(contents, PORTAL, (url) => opened.push(url));
    return { contents, opened };
  }

  it('stops navigations and redirects away from the portal, opening web pages in the browser', () => {
    const { contents, opened } = guarded();
    expect(contents.navigate(`${PORTAL}/exams`)).toBe(true);
    expect(contents.navigate('https://example.org/help')).toBe(false);
    expect(contents.navigate('https://sso.example.org/login', 'will-redirect')).toBe(false);
    expect(contents.navigate('file:///C:/Windows/win.ini')).toBe(false);
    expect(opened).toEqual(['https://example.org/help', 'https://sso.example.org/login']);
  });

  it('opens new windows only on the portal', () => {
    const { contents, opened } = guarded();
    expect(contents.open(`${PORTAL}/v1/docs`)).toBe(true);
    expect(contents.open('https://example.org/')).toBe(false);
    expect(contents.open('javascript:void(0)')).toBe(false);
    expect(opened).toEqual(['https://example.org/']);
  });

  it('guards the windows the portal opens as well', () => {
    const { contents, opened } = guarded();
    const child = { webContents: new FakeWebContents() };
    contents.emit('did-create-window', child);
    expect(child.webContents.navigate('https://example.org/elsewhere')).toBe(false);
    expect(child.webContents.open('http://example.org/')).toBe(false);
    expect(opened).toEqual(['https://example.org/elsewhere', 'http://example.org/']);
  });

  it('answers permission requests with the portal rule', () => {
    const { contents } = guarded();
    expect(contents.session.request('clipboard-sanitized-write', `${PORTAL}/`)).toBe(true);
    expect(contents.session.request('geolocation', `${PORTAL}/`)).toBe(false);
  });
});
