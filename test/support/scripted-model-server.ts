/** The scripted model server lives in the product (the demo runs on it); tests import it from here too. */
export * from '../../src/testing/scripted-model-server';
