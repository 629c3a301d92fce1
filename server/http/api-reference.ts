import express, { type RequestHandler, type Router } from 'express';
import type { OpenApiDocument } from './openapi.js';

/**
 * The interactive reference (Swagger UI) for a document, loaded and rendered at its first
 * request: the library and the rendered page (the document inlined, megabytes) stay out of an
 * appliance's memory until someone opens it.
 */
export function apiReferencePage(document: () => OpenApiDocument, title: string): RequestHandler {
  let page: Promise<Router> | undefined;
  const render = async () => {
    const { default: swaggerUi } = await import('swagger-ui-express');
    const router = express.Router();
    router.use(
      swaggerUi.serveFiles(document(), {}),
      swaggerUi.setup(document(), {
        customSiteTitle: title,
        customCss: '',
        swaggerOptions: { validatorUrl: null, persistAuthorization: false, tryItOutEnabled: true },
      }),
    );
    return router;
  };
  return (req, res, next) => {
    page ??= render().catch((error: unknown) => {
      page = undefined; // the next request tries again
      throw error;
    });
    page.then((router) => router(req, res, next), next);
  };
}
