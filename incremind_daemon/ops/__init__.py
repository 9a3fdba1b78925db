"""Operations on a home as a whole: the service, backups, export, doctor, logs and back-fill."""
