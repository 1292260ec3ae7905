import { toIndexText } from "../../src/memory/normalize";

// The product's text normalisation alone in a Worker: the soak's first phase sends it long texts.
export default {
  async fetch(request) {
    return new Response(String(toIndexText(await request.text()).length));
  },
} satisfies ExportedHandler;
