"""The app's screens: run, session browser, session, and the modals."""
