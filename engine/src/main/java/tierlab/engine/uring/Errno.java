package tierlab.engine.uring;

import java.util.HashMap;
import java.util.Map;

/**
 * Linux errno numbers and their names, as in {@code asm-generic/errno-base.h} and
 * {@code asm-generic/errno.h} (x86-64 and arm64 share these numbers). The engine reports failures
 * by name ({@code EIO}, {@code EINVAL}) because a name survives logs, CSV files and the model's
 * {@code IoCompletion} unchanged, while a bare number needs this table to be read.
 *
 * <p>Two names are the engine's own and not kernel errnos: {@link #ESHORT} (a transfer that made
 * no progress before its length, e.g. a read at end of file) and {@link #ECLOSED} (the backend
 * was closed before the operation was accepted).
 */
public final class Errno {

    /** A read or write ended before its length (end of file or device); never accepted silently. */
    public static final String ESHORT = "ESHORT";

    /** The backend was closed; the operation never reached a device. */
    public static final String ECLOSED = "ECLOSED";

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int EEXIST = 17;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EINVAL = 22;
    public static final int EFBIG = 27;
    public static final int ENOSPC = 28;
    public static final int ENOSYS = 38;
    public static final int EOPNOTSUPP = 95;
    public static final int ECANCELED = 125;

    /** Index = errno number; null where Linux leaves a number unused (41, 58). */
    private static final String[] NAMES = {
            null, // 0 is success, not an error
            "EPERM", // 1
            "ENOENT", // 2
            "ESRCH", // 3
            "EINTR", // 4
            "EIO", // 5
            "ENXIO", // 6
            "E2BIG", // 7
            "ENOEXEC", // 8
            "EBADF", // 9
            "ECHILD", // 10
            "EAGAIN", // 11
            "ENOMEM", // 12
            "EACCES", // 13
            "EFAULT", // 14
            "ENOTBLK", // 15
            "EBUSY", // 16
            "EEXIST", // 17
            "EXDEV", // 18
            "ENODEV", // 19
            "ENOTDIR", // 20
            "EISDIR", // 21
            "EINVAL", // 22
            "ENFILE", // 23
            "EMFILE", // 24
            "ENOTTY", // 25
            "ETXTBSY", // 26
            "EFBIG", // 27
            "ENOSPC", // 28
            "ESPIPE", // 29
            "EROFS", // 30
            "EMLINK", // 31
            "EPIPE", // 32
            "EDOM", // 33
            "ERANGE", // 34
            "EDEADLK", // 35
            "ENAMETOOLONG", // 36
            "ENOLCK", // 37
            "ENOSYS", // 38
            "ENOTEMPTY", // 39
            "ELOOP", // 40
            null, // 41 unused on Linux
            "ENOMSG", // 42
            "EIDRM", // 43
            "ECHRNG", // 44
            "EL2NSYNC", // 45
            "EL3HLT", // 46
            "EL3RST", // 47
            "ELNRNG", // 48
            "EUNATCH", // 49
            "ENOCSI", // 50
            "EL2HLT", // 51
            "EBADE", // 52
            "EBADR", // 53
            "EXFULL", // 54
            "ENOANO", // 55
            "EBADRQC", // 56
            "EBADSLT", // 57
            null, // 58 unused on Linux
            "EBFONT", // 59
            "ENOSTR", // 60
            "ENODATA", // 61
            "ETIME", // 62
            "ENOSR", // 63
            "ENONET", // 64
            "ENOPKG", // 65
            "EREMOTE", // 66
            "ENOLINK", // 67
            "EADV", // 68
            "ESRMNT", // 69
            "ECOMM", // 70
            "EPROTO", // 71
            "EMULTIHOP", // 72
            "EDOTDOT", // 73
            "EBADMSG", // 74
            "EOVERFLOW", // 75
            "ENOTUNIQ", // 76
            "EBADFD", // 77
            "EREMCHG", // 78
            "ELIBACC", // 79
            "ELIBBAD", // 80
            "ELIBSCN", // 81
            "ELIBMAX", // 82
            "ELIBEXEC", // 83
            "EILSEQ", // 84
            "ERESTART", // 85
            "ESTRPIPE", // 86
            "EUSERS", // 87
            "ENOTSOCK", // 88
            "EDESTADDRREQ", // 89
            "EMSGSIZE", // 90
            "EPROTOTYPE", // 91
            "ENOPROTOOPT", // 92
            "EPROTONOSUPPORT", // 93
            "ESOCKTNOSUPPORT", // 94
            "EOPNOTSUPP", // 95
            "EPFNOSUPPORT", // 96
            "EAFNOSUPPORT", // 97
            "EADDRINUSE", // 98
            "EADDRNOTAVAIL", // 99
            "ENETDOWN", // 100
            "ENETUNREACH", // 101
            "ENETRESET", // 102
            "ECONNABORTED", // 103
            "ECONNRESET", // 104
            "ENOBUFS", // 105
            "EISCONN", // 106
            "ENOTCONN", // 107
            "ESHUTDOWN", // 108
            "ETOOMANYREFS", // 109
            "ETIMEDOUT", // 110
            "ECONNREFUSED", // 111
            "EHOSTDOWN", // 112
            "EHOSTUNREACH", // 113
            "EALREADY", // 114
            "EINPROGRESS", // 115
            "ESTALE", // 116
            "EUCLEAN", // 117
            "ENOTNAM", // 118
            "ENAVAIL", // 119
            "EISNAM", // 120
            "EREMOTEIO", // 121
            "EDQUOT", // 122
            "ENOMEDIUM", // 123
            "EMEDIUMTYPE", // 124
            "ECANCELED", // 125
            "ENOKEY", // 126
            "EKEYEXPIRED", // 127
            "EKEYREVOKED", // 128
            "EKEYREJECTED", // 129
            "EOWNERDEAD", // 130
            "ENOTRECOVERABLE", // 131
            "ERFKILL", // 132
            "EHWPOISON", // 133
    };

    private static final Map<String, Integer> NUMBERS = new HashMap<>();

    static {
        for (int i = 0; i < NAMES.length; i++) {
            if (NAMES[i] != null) {
                NUMBERS.put(NAMES[i], i);
            }
        }
    }

    private Errno() {}

    /** The name of a positive errno ({@code 22 -> "EINVAL"}); unknown numbers read {@code "E<number>"}. */
    public static String name(int errno) {
        int positive = Math.abs(errno);
        if (positive > 0 && positive < NAMES.length && NAMES[positive] != null) {
            return NAMES[positive];
        }
        return "E" + positive;
    }

    /** The number of a name ({@code "EINVAL" -> 22}), or -1 when the name is not a Linux errno. */
    public static int number(String name) {
        Integer number = NUMBERS.get(name);
        return number == null ? -1 : number;
    }

    /** The highest errno number in the table. */
    public static int maxErrno() {
        return NAMES.length - 1;
    }
}
