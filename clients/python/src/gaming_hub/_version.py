VERSION = "0.1.0"
USER_AGENT = f"gaming-hub-client-python/{VERSION}"
