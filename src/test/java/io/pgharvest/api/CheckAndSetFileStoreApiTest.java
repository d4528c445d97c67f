package io.pgharvest.api;

/** {@link CheckAndSetApiTests} on the file store (the default). */
class CheckAndSetFileStoreApiTest extends CheckAndSetApiTests {

    @Override
    String prefix() {
        return "file";
    }
}
